/**
 * A file refused whole while it is read (EDOC_MAP_FORMAT_MISMATCH) has its stored documents removed:
 * the numbers they held were never used, and `status` (ranges.json, what the daemon's range watch last
 * computed) must not keep showing them as a range's "last used". The real daemon (child process), the
 * emulator over HTTP, the shipped sales mapping.
 */
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { INSERT_BATCH } from '../../src/intake/intake-documents.js';
import { buildCli, eventually } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { sale, toCsv } from '../map/helpers.js';

const root = path.join(import.meta.dirname, '../..');

beforeAll(async () => {
  await buildCli();
}, 240_000);

interface StatusRanges {
  ranges: { ranges: { prefix: string; lastUsed?: number }[] } | null;
}

describe('status after a file refused whole', () => {
  test("shows no range's last used number from the documents the refusal removed", async ({
    daemonProject,
  }) => {
    const { project, startDaemon, cli } = await daemonProject({
      kinds: { invoice: { mapping: path.join(root, 'config/mappings/sales.csv.yaml') } },
    });
    const daemon = await startDaemon();
    await daemon.waitForLog((l) => l.msg === 'watching the inbox');
    // batch 1: SETP990000100 … SETP990000599 (500), stored held back; batch 2 opens with SETP999000001,
    // outside SETP 990000000–995000000: judging it reads E10 again, and the watch computes the ledger's
    // highest SETP number then: 990000599. Row 1,003 (04/13/2026, a month-first date) refuses the file.
    const rows = Array.from({ length: INSERT_BATCH }, (_, i) => sale(String(990_000_100 + i), '1'));
    rows.push(sale('999000001', '1'));
    for (let i = 0; i < INSERT_BATCH; i++) rows.push(sale(String(990_000_600 + i), '1'));
    rows.push(sale('990001100', '1', { fecha: '04/13/2026' }));
    await project.drop('invoice', 'ventas-mes-dia.csv', toCsv(rows));
    const result = await project.finalResult('invoice', 'ventas-mes-dia.csv', {
      timeoutMs: 60_000,
    });
    expect(result.error).toMatchObject({ code: 'EDOC_MAP_FORMAT_MISMATCH' });
    expect(result.counts.total).toBe(0);
    // the ledger holds no SETP document: no number of the range is used (before the daemon's minute)
    const seen: (number | undefined)[] = [];
    await eventually(
      async () => {
        const json = JSON.parse((await cli(['status', '--json'])).stdout) as StatusRanges;
        const setp = json.ranges?.ranges.find((r) => r.prefix === 'SETP');
        seen.push(setp?.lastUsed);
        return setp !== undefined && setp.lastUsed === undefined ? true : undefined;
      },
      'status showing SETP with no number used',
      8_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last used seen: ${seen.slice(-3).join(', ')}`);
    });
    const list = await cli(['ranges', 'list']);
    expect(list.stdout).not.toContain('990000599');
  });
});
