/**
 * A file dropped in the inbox but in no inbox folder (the inbox itself, a folder of no kind such as a
 * mistyped `factura/`) is not taken, and the daemon says so once per file (EDOC_READ_NOT_IN_INBOX), naming
 * it: without the line the operator waits for a report that never comes. Real daemon, real folders.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, BUILD_TIMEOUT_MS);

describe('files outside the inbox folders', () => {
  test('one in the inbox itself and one in inbox/factura/ are each named in one warning; staging names and the kind folders are not', async ({
    daemonProject,
  }) => {
    const { emulator, project: p, startDaemon } = await daemonProject({ stableMs: 300 });
    const root = path.dirname(p.inbox('invoice'));
    const inRoot = path.join(root, 'ventas-lunes.json');
    const typo = path.join(root, 'factura', 'ventas-martes.json');
    await mkdir(path.dirname(typo), { recursive: true });
    await writeFile(inRoot, jsonText([invoice(990_127_001)]));
    await writeFile(typo, jsonText([invoice(990_127_002)]));
    await writeFile(path.join(root, 'ventas-miercoles.json.part'), '[');
    await startDaemon();
    await p.drop('invoice', 'ventas-jueves.json', jsonText([invoice(990_127_004)]));
    const result = await p.finalResult('invoice', 'ventas-jueves.json', { timeoutMs: 60_000 });
    expect(result.counts.accepted).toBe(1);

    for (const file of [inRoot, typo]) {
      const line = await p.waitForLog(
        (l) => l.code === 'EDOC_READ_NOT_IN_INBOX' && l.file === file,
        {
          timeoutMs: 30_000,
        },
      );
      expect(line.level).toBe('warn');
      expect(String(line.msg)).toContain('it is not taken');
    }
    const warned = p.logLines().filter((l) => l.code === 'EDOC_READ_NOT_IN_INBOX');
    expect(warned.map((l) => l.file).sort()).toEqual([inRoot, typo].sort());
    // only the invoice in its folder was issued
    expect((await emulator.client.issued()).map((d) => d.documentNumber)).toEqual([
      'SETP990127004',
    ]);
  });
});
