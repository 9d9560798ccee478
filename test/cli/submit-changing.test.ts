/**
 * `edoc-bridge submit` follows the daemon's rule (issue 12 item 2): nothing is
 * sent from content that changed while it was read; the command reads the file
 * again once it is unchanged and sends every document from the final content.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { spawnCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  type Project,
  sleep,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  // the company's rate is not what this is about: at the harness's 50/s the ~1,000 documents took 20 s to send
  ({ emulator, project } = await resources.daemonProject({
    stableMs: 300,
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 1_000, concurrency: 8 } }],
  }));
}, 240_000);

test('submit on a file an exporter is still appending to: it reads the file again once unchanged and sends every document of the final content, each once', async () => {
  const dir = path.join(project.dir, 'exports');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'creciendo.jsonl');
  const first = 990_300_000;
  let written = 1_000;
  await writeFile(file, jsonlText(Array.from({ length: written }, (_, i) => invoice(first + i))));
  const run = spawnCli(project, ['submit', file, '--kind', 'invoice']);
  let stderr = '';
  run.process.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // the exporter keeps appending until the command has seen the file change under it
  let exited = false;
  void run.done.then(() => {
    exited = true;
  });
  while (!/changed while it was read/.test(stderr) && !exited) {
    await appendFile(file, jsonlText([invoice(first + written)]));
    written++;
    await sleep(5);
  }
  const done = await run.done;
  expect(done.stderr).toMatch(
    /creciendo\.jsonl: the file changed while it was read; nothing of it was sent/,
  );
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout).toMatch(
    new RegExp(`creciendo\\.jsonl: ${written} document\\(s\\): ${written} accepted`),
  );
  const issued = (await emulator.client.documents()).map((d) => d.documentNumber);
  expect(issued).toHaveLength(written);
  expect(new Set(issued).size).toBe(written);
}, 240_000);
