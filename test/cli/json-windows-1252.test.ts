/**
 * A JSON or JSONL export written in Windows-1252 (an ERP on Windows) is read by the rule CSV files follow:
 * not UTF-8 → Windows-1252, with one EDOC_READ_NOT_UTF8 warning per file; the service receives the accented
 * letters as the ERP meant them. The real CLI (`submit`) as a child process, the emulator over HTTP.
 */
import iconv from 'iconv-lite';
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { invoice, jsonlText, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const DESCRIPTION = 'Café y año, 5 € de descuento';

function described(number: number): ReturnType<typeof invoice> {
  const doc = invoice(number);
  ((doc.Lines as Record<string, unknown>[])[0].Item as Record<string, unknown>).Description =
    DESCRIPTION;
  return doc;
}

describe('a Windows-1252 JSON / JSONL export', () => {
  test('submit reads .json and .jsonl in Windows-1252 with one warning each; the service gets "Café y año, 5 €"', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    // é = E9, ñ = F1, € = 80 in Windows-1252: no valid UTF-8 sequence
    const json = iconv.encode(jsonText([described(990_261_001)]), 'windows-1252');
    const jsonl = iconv.encode(
      jsonlText([described(990_261_002), described(990_261_003)]),
      'windows-1252',
    );
    expect(json.includes(0xf1) && json.includes(0x80)).toBe(true);
    const files = [
      await p.exportFile('ventas.json', json),
      await p.exportFile('lineas.jsonl', jsonl),
    ];
    for (const file of files) {
      const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
      expect(run.code, run.stderr).toBe(0);
    }
    const warnings = p.logLines().filter((l) => l.code === 'EDOC_READ_NOT_UTF8');
    expect(warnings.map((l) => [l.level, l.file])).toEqual([
      ['warn', 'ventas.json'],
      ['warn', 'lineas.jsonl'],
    ]);
    expect(String(warnings[0].msg)).toMatch(
      /not UTF-8: read as Windows-1252 .* save JSON as UTF-8/,
    );
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    expect(
      issued.map(
        (d) =>
          (d.request as { Lines: { Item: { Description: string } }[] }).Lines[0].Item.Description,
      ),
    ).toEqual([DESCRIPTION, DESCRIPTION, DESCRIPTION]);
    expect((await p.result('invoice', 'lineas.jsonl'))?.counts).toMatchObject({
      total: 2,
      accepted: 2,
    });
  });

  test('a UTF-8 file gets no warning', async ({ daemonProject }) => {
    const { project: p } = await daemonProject();
    const file = await p.exportFile('ventas.json', jsonText([described(990_261_011)]));
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(0);
    expect(p.logLines().filter((l) => l.code === 'EDOC_READ_NOT_UTF8')).toEqual([]);
  });
});
