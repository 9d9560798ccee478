/**
 * `edoc-bridge submit` takes one file: a part of an export in two files (a mapping's `parts`) given to
 * it alone is refused and said to be read only with its partner from an inbox folder; nothing is sent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';

const ROOT = path.join(import.meta.dirname, '../..');

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe('submit and exports in two files', () => {
  test('a part alone is refused (EDOC_READ_SET_NOT_A_PART), nothing sent', async ({
    daemonProject,
  }) => {
    const x = await daemonProject({
      kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml') } },
    });
    const file = await x.project.exportFile(
      'Documents.csv',
      await readFile(path.join(ROOT, 'examples/erp/sap-b1/Documents.csv')),
    );
    const run = await x.cli(['submit', file, '--kind', 'invoice']);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain(
      'Documents.csv is the header file of an export in two files: it is read only with its partner',
    );
    expect(await x.emulator.client.documents({ kind: 'invoice' })).toEqual([]);
  });
});
