/**
 * Issue 12 items 8/9 at the command line: a one-shot command's error line on
 * stderr never shows a configured API key, even when the failing file quotes
 * it (here a mapping whose kindCheck names the key as a kind: the mapping error
 * quotes the value). Real CLI as a child process, real files.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  createProject,
  type Project,
  ROOT,
} from '../helpers/daemon-harness.js';

let project: Project;

beforeAll(async () => {
  await buildCli();
  project = await createProject({ baseUrl: 'http://127.0.0.1:9', companies: [COMPANY_MAIN] });
}, 120_000);

afterAll(async () => {
  await project?.remove();
});

describe('a configured key quoted by an error (issue 12 item 8)', () => {
  test('validate with a mapping that names the company key as a kind: exit 2, the error names the entry, stderr shows [redacted], never the key', async () => {
    const shipped = await readFile(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8');
    const mapping = shipped.replace(
      'values: { NC: credit-note, ND: debit-note }',
      `values: { NC: credit-note, ND: '${COMPANY_MAIN.apiKey}' }`,
    );
    expect(mapping).not.toBe(shipped);
    const mappingFile = path.join(project.dir, 'sales-with-key.yaml');
    await writeFile(mappingFile, mapping);
    await project.writeConfig({ ...project.options, kinds: { invoice: { mapping: mappingFile } } });
    const run = await runCli(project, [
      'validate',
      path.join(ROOT, 'examples/invoices.csv'),
      '--kind',
      'invoice',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('kindCheck[3].values.ND: unknown kind "[redacted]"');
    expect(`${run.stdout}${run.stderr}`).not.toContain(COMPANY_MAIN.apiKey);
  });
});
