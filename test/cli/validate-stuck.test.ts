/**
 * `edoc-bridge validate` with a mapping whose capture pattern backtracks without end on one row's cells
 * (test/helpers/backtracking.ts): the command used to map in-process and never end, printing nothing
 * after the rows before it. It now reads on a watched thread: after read.stuckAfter (2 s here) the file
 * gets its `{ file, error }` line with EDOC_READ_STUCK naming the row, the file given after it is
 * validated whole, and the command exits 1 (a file that cannot be read).
 */
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { POISON_NAME, salesCsv, writeBacktrackingMapping } from '../helpers/backtracking.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe('validate with a mapping that backtracks on one row', () => {
  test('the file is refused naming the row after stuckAfter; the next file is validated', async ({
    resources,
  }) => {
    const dir = await resources.tempDir('edoc-validate-stuck-');
    const mapping = writeBacktrackingMapping(dir);
    const { project, cli } = await resources.daemonProject({
      companies: [COMPANY_MAIN],
      kinds: { invoice: { mapping } },
      read: { stuckAfter: '2s' },
    });
    // data row 3 is the file's row 4; the forty `a`s are followed by the company's API key
    const poison = await project.exportFile(
      'ventas-nombre.csv',
      salesCsv(990900001, 4, { 3: `${POISON_NAME} ${COMPANY_MAIN.apiKey}` }),
    );
    const next = await project.exportFile('ventas-despues.csv', salesCsv(990910001, 2));
    const run = await cli(['validate', poison, next, '--kind', 'invoice'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // rows 2 and 3 of the first file, its error line, then the two documents of the next file
    expect(lines.map((l) => (l.error === undefined ? l.key : 'error'))).toEqual([
      'main/invoice/SETP/990900001',
      'main/invoice/SETP/990900002',
      'error',
      'main/invoice/SETP/990910001',
      'main/invoice/SETP/990910002',
    ]);
    expect(lines[2]).toEqual({
      file: poison,
      error: {
        code: 'EDOC_READ_STUCK',
        message: expect.stringMatching(
          /^ventas-nombre\.csv: mapping row 4 took longer than 2 s .*the rest of the file was not read$/,
        ),
        file: 'ventas-nombre.csv',
        row: 4,
      },
    });
    expect(lines[3]).toMatchObject({ file: next, problems: [] });
    expect(run.stderr).toMatch(/EDOC_READ_STUCK: ventas-nombre\.csv: mapping row 4 took longer/);
    expect(run.stdout + run.stderr).not.toContain(COMPANY_MAIN.apiKey);
    expect(run.stdout + run.stderr).not.toContain(POISON_NAME);
  }, 120_000);
});
