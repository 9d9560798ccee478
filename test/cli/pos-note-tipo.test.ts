/**
 * A POS content whose `documentosAfectados` names the sale it corrects is an adjustment note. E3's
 * `tipo` comes from `kinds.pos.tipo` or the file's name (PRODUCT kinds table): in a file whose name
 * says no `nota-ajuste-…`, the service would issue the note as one more sale. `submit` and `validate`
 * refuse it; the same content in a `…nota-ajuste-credito…` file is the note it says.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, type ResultJson } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { jsonText, pos } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** POS<number>, the full return of the sale POS1001 of the same day. */
function refund(number: number): Record<string, unknown> {
  const doc = pos(number);
  (doc.documento as Record<string, unknown>).documentosAfectados = [
    { numeroDocumento: 'POS1001', fechaEmision: '2026-11-20', codigoCausal: '1' },
  ];
  return doc;
}

describe('a POS adjustment note is sent as one, never as a sale', () => {
  test('documentosAfectados under tipo pos (the file name names no note) is invalid, not sent', async ({
    daemonProject,
  }) => {
    const { project: p, emulator } = await daemonProject();
    const wrong = await p.exportFile('devoluciones-20.json', jsonText([refund(1201)]));
    const checked = await runCli(p, ['validate', wrong, '--kind', 'pos']);
    expect(checked.code, checked.stderr).toBe(1);
    const line = JSON.parse(checked.stdout.trim()) as {
      problems: { code: string; path: string }[];
    };
    expect(line.problems.map((x) => [x.code, x.path])).toEqual([
      ['EDOC_VALIDATE_KIND', 'documento.documentosAfectados'],
    ]);

    const run = await runCli(p, ['submit', wrong, '--kind', 'pos']);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(
      await readFile(p.resultPath('pos', 'devoluciones-20.json'), 'utf8'),
    ) as ResultJson;
    expect(result.documents.map((d) => [d.status, d.errors[0]?.code])).toEqual([
      ['invalid', 'EDOC_VALIDATE_KIND'],
    ]);
    expect(result.documents[0].errors[0]?.message).toContain('documentosAfectados names POS1001');
    expect(await emulator.client.issued({})).toEqual([]);

    // the same note in a file named for it: a credit adjustment note
    const right = await p.exportFile('nota-ajuste-credito-20.json', jsonText([refund(1202)]));
    const sent = await runCli(p, ['submit', right, '--kind', 'pos']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await emulator.client.issued({})).map((d) => [d.kind, d.number])).toEqual([
      ['pos-credit-note', '1202'],
    ]);
  });
});
