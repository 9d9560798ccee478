/**
 * What the ledger stores for a mapped CSV, byte for byte: every shipped example and a sales export
 * with numbers written in many ways go through intakeFile into a real ledger, and the stored request
 * text, state and problems of each document are compared with a file recorded from the code before
 * the intake was made faster (issue 16 item 7, base commit 68fad57). A faster mapping evaluator,
 * number conversion or request serialisation must not change one byte of what reaches the authority.
 */
import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { intakeFile } from '../../src/intake/intake.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { createLogger } from '../../src/log/logger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import { tempDir } from '../report/helpers.js';
import { EXAMPLES, MAPPINGS, sale, toCsv } from './helpers.js';

const MAPPING_OF: Record<string, string> = {
  invoice: 'sales',
  'credit-note': 'sales',
  'debit-note': 'sales',
  'support-document': 'support-document',
  'support-adjustment': 'support-adjustment',
  payroll: 'payroll',
  pos: 'pos',
};

/** Stored rows of one file: state, problems and request text as the ledger holds them. */
async function stored(name: string, bytes: Buffer, kind: DocumentKind): Promise<string> {
  const root = tempDir('edoc-stored-requests-');
  const mappingFile = path.join(MAPPINGS, `${MAPPING_OF[kind]}.csv.yaml`);
  const config = await resolveConfig(
    {
      companies: [
        { alias: 'main', id: 1001, nit: '900123456', apiKey: 'demo-key-1001', userId: 7 },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
      kinds: { [kind]: { mapping: mappingFile } },
    },
    { file: 'edoc-bridge.yaml', cwd: root, env: {} },
  );
  const inbox = path.join(config.paths.inbox, kind);
  fs.mkdirSync(inbox, { recursive: true });
  const input = path.join(inbox, name);
  fs.writeFileSync(input, bytes);
  const ledger = Ledger.open(config.paths.state);
  const logger = createLogger({
    file: path.join(config.paths.logs, 'edoc-bridge.log'),
    level: 'silent',
  });
  try {
    const mapping = await loadMapping(mappingFile);
    const taken = await intakeFile(
      {
        ledger,
        config,
        logger,
        today: '2026-11-22',
        mapping: async () => mapping,
        onDocuments: () => undefined,
        onFileChanged: () => undefined,
      },
      { path: input, kind, company: config.companies[0] },
    );
    expect(taken.outcome).toBe('read');
    const rows = ledger.db
      .prepare(
        `SELECT d.idx, d.state, d.problems, b.request, b.request_is_raw FROM documents d
      JOIN document_bodies b ON b.id = d.id WHERE d.file_id = ? ORDER BY d.idx`,
      )
      .all(taken.fileId) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(0);
    return rows.map((r) => JSON.stringify(r)).join('\n');
  } finally {
    await ledger.close();
    await logger.close();
  }
}

/** Quantities, prices and rates as ERPs write them: thousands dots, many decimals, a currency sign, spaces, bad ones. */
function numbersExport(): Buffer {
  const quantities = [
    '1',
    '2,5',
    '0,125',
    '1.000',
    '007',
    '3,10',
    '12,3456',
    ' 4 ',
    '0,5',
    '-2',
    '1,',
    'x',
  ];
  const prices = [
    '1.234.567,50',
    '0,005',
    '$ 1.000,00',
    '12,345',
    '100',
    '0,00',
    ' 3,10 ',
    '999.999,999',
    '1.5.0', // in neither convention (1.5 alone would refuse the whole file: format-mismatch.test.ts)
    '0,015',
    '2.000',
    '-1,00',
  ];
  const rates = ['19', '5', '0', '', '19,00', '2,5%', '16 %', '0,00', '19/5', '8', '5,0', '19'];
  const rows: Record<string, string>[] = [];
  for (let doc = 0; doc < 24; doc++) {
    for (let line = 1; line <= 3; line++) {
      const i = doc * 3 + line;
      rows.push(
        sale(String(990_000_500 + doc), String(line), {
          cantidad: quantities[i % quantities.length],
          precio_unitario: prices[(i * 5) % prices.length],
          iva: rates[(i * 7) % rates.length],
        }),
      );
    }
  }
  return iconv.encode(toCsv(rows), 'windows-1252');
}

describe('the ledger stores the same requests for a mapped CSV as before the intake was made faster', () => {
  const examples: [string, DocumentKind][] = [
    ['invoices.csv', 'invoice'],
    ['credit-notes.csv', 'credit-note'],
    ['debit-notes.csv', 'debit-note'],
    ['support-documents.csv', 'support-document'],
    ['support-adjustments.csv', 'support-adjustment'],
    ['payroll.csv', 'payroll'],
    ['pos.csv', 'pos'],
  ];
  for (const [file, kind] of examples) {
    it(`examples/${file} (${kind})`, async () => {
      const text = await stored(file, fs.readFileSync(path.join(EXAMPLES, file)), kind);
      await expect(text).toMatchFileSnapshot(`../fixtures/csv/stored-requests/${file}.txt`);
    });
  }

  it('a sales export with numbers written in many ways, some of them wrong', async () => {
    const text = await stored('numbers.csv', numbersExport(), 'invoice');
    await expect(text).toMatchFileSnapshot('../fixtures/csv/stored-requests/numbers.csv.txt');
  });
});
