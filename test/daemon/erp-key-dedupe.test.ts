/**
 * A document the service numbers is issued once per ERP key (the mapping's key columns), whatever file
 * brings it. POS exports are by date range: receipt 1-1045 of the Loyverse sample comes again inside the
 * next, overlapping export; a support document keyed by the ERP's `documento` is exported again. Real
 * daemon, real emulator over HTTP, the shipped mappings; the ledger on SQLite and on PostgreSQL.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, ROOT } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { createDatabase, describePg } from '../helpers/postgres.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const kinds = {
  pos: { mapping: path.join(ROOT, 'config/mappings/erp/loyverse-pos.yaml') },
  'support-document': { mapping: path.join(ROOT, 'config/mappings/support-document.csv.yaml') },
};

interface Doc {
  status: string;
  source: { erpKey?: string };
  issued: { prefix: string; number: string } | null;
  errors: { code: string; field?: string; message: string }[];
}

/** The Loyverse sample: header, then rows of receipts 1-1042 (2), 1-1043 cancelled, 1-1044 refund, 1-1045 (2), 1-1046. */
async function loyverse(): Promise<{ header: string; rows: (receipt: string) => string[] }> {
  const text = await readFile(
    path.join(ROOT, 'examples/erp/loyverse/loyverse-recibos-por-articulo.csv'),
    'utf8',
  );
  const [header, ...rows] = text.split('\n').filter((l) => l !== '');
  return { header, rows: (receipt) => rows.filter((r) => r.split(',')[1] === receipt) };
}

/** The emulator's POS documents whose `codigoVenta` is `receipt`. */
async function posIssued(
  emulator: {
    client: { documents(f: object): Promise<{ request?: unknown; accepted: boolean }[]> };
  },
  receipt: string,
): Promise<number> {
  const all = await emulator.client.documents({ kind: 'pos', withRequest: true });
  return all.filter(
    (d) =>
      d.accepted &&
      (d.request as { content: { documento: { cajaVenta: { codigoVenta: string } } } }).content
        .documento.cajaVenta.codigoVenta === receipt,
  ).length;
}

function suite(ledger: () => Promise<Record<string, unknown> | undefined>): void {
  test('a receipt re-exported in an overlapping export is a duplicate naming its file and number; changed, it is EDOC_ISSUED_OTHER_CONTENT', async ({
    daemonProject,
  }) => {
    const l = await ledger();
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds,
      stableMs: 200,
      ...(l === undefined ? {} : { ledger: l }),
    });
    await startDaemon();
    const { header, rows } = await loyverse();
    const sample = [header, ...rows('1-1042'), ...rows('1-1045'), ...rows('1-1046')].join('\n');
    await p.drop('pos', 'loyverse-21.csv', `${sample}\n`);
    const first = (await p.finalResult('pos', 'loyverse-21.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect(first.map((d) => [d.source.erpKey, d.status])).toEqual([
      ['1-1042', 'accepted'],
      ['1-1045', 'accepted'],
      ['1-1046', 'invalid'], // its pre-VAT price is not exact (erp-presets-daemon.test.ts)
    ]);
    const issuedAs = `${first[1].issued!.prefix}${first[1].issued!.number}`;

    // the next export overlaps: 1-1045 again, unchanged, and a new receipt 1-1047 (1-1045's rows renumbered)
    const next = [
      header,
      ...rows('1-1045'),
      ...rows('1-1045').map((r) => r.replace('1-1045', '1-1047').replace('15:20', '16:02')),
    ].join('\n');
    await p.drop('pos', 'loyverse-21-22.csv', `${next}\n`);
    const second = (await p.finalResult('pos', 'loyverse-21-22.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect(second.map((d) => [d.source.erpKey, d.status])).toEqual([
      ['1-1045', 'duplicate'],
      ['1-1047', 'accepted'],
    ]);
    expect(second[0].errors).toEqual([
      {
        code: 'EDOC_LEDGER_DUPLICATE_ERP_KEY',
        message: `The document with ERP key 1-1045 was issued already as ${issuedAs} (accepted from loyverse-21.csv); not sent again.`,
      },
    ]);
    expect(await posIssued(emulator, '1-1045')).toBe(1);
    expect(await posIssued(emulator, '1-1047')).toBe(1);

    // 1-1045 exported once more, its coffee line now 3 units: Net sales 17,850 (11,900 / 2 × 3), Taxes 2,850
    // (17,850 / 1.19 = 15,000; × 19 % = 2,850). Payable 18,500 + 17,850 = 36,350.00, not the 30,400.00 issued.
    const changed = [
      header,
      rows('1-1045')[0],
      rows('1-1045')[1].replace(
        ',2,11900.00,0.00,11900.00,4000.00,7900.00,1900.00,',
        ',3,17850.00,0.00,17850.00,6000.00,11850.00,2850.00,',
      ),
    ].join('\n');
    await p.drop('pos', 'loyverse-21-corregido.csv', `${changed}\n`);
    const third = (await p.finalResult('pos', 'loyverse-21-corregido.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect(third.map((d) => d.status)).toEqual(['duplicate']);
    expect(third[0].errors.map((e) => [e.code, e.field])).toEqual([
      ['EDOC_ISSUED_OTHER_CONTENT', 'payable amount'],
    ]);
    expect(third[0].errors[0].message).toContain(
      `${issuedAs} was issued (accepted from loyverse-21.csv)`,
    );
    expect(third[0].errors[0].message).toContain(
      'payable amount: issued 30400, the file now says 36350',
    );
    expect(await posIssued(emulator, '1-1045')).toBe(1);
  }, 180_000);

  test('two exports holding one new receipt, dropped together: it is issued once', async ({
    daemonProject,
  }) => {
    const l = await ledger();
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds,
      stableMs: 200,
      ...(l === undefined ? {} : { ledger: l }),
    });
    await startDaemon();
    const { header, rows } = await loyverse();
    const receipt = rows('1-1045').map((r) => r.replace('1-1045', '1-1050'));
    await Promise.all([
      p.drop('pos', 'caja-1.csv', `${[header, ...receipt].join('\n')}\n`),
      p.drop('pos', 'caja-1-copia.csv', `${[header, ...receipt, ...rows('1-1042')].join('\n')}\n`),
    ]);
    const a = (await p.finalResult('pos', 'caja-1.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    const b = (await p.finalResult('pos', 'caja-1-copia.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect([a[0].status, b[0].status].sort()).toEqual(['accepted', 'duplicate']);
    expect(b[1].status).toBe('accepted'); // 1-1042
    expect(await posIssued(emulator, '1-1050')).toBe(1);
  }, 180_000);

  test('a support document keyed by its ERP documento, exported again, is a duplicate', async ({
    daemonProject,
  }) => {
    const l = await ledger();
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds,
      stableMs: 200,
      ...(l === undefined ? {} : { ledger: l }),
    });
    await startDaemon();
    // the shipped sample (Windows-1252): DS101 numbered by the ERP, ERP-CXP-5521 numbered by the service
    const text = await readFile(path.join(ROOT, 'examples/support-documents.csv'), 'latin1');
    const [header, ...rows] = text.split('\n').filter((r) => r !== '');
    const cxp = rows.filter((r) => r.includes(';ERP-CXP-5521;'));
    expect(cxp).toHaveLength(2);
    await p.drop(
      'support-document',
      'cxp-20.csv',
      Buffer.from(`${[header, ...cxp].join('\n')}\n`, 'latin1'),
    );
    const first = (await p.finalResult('support-document', 'cxp-20.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect(first.map((d) => d.status)).toEqual(['accepted']);
    const issuedAs = `${first[0].issued!.prefix}${first[0].issued!.number}`;
    await p.drop(
      'support-document',
      'cxp-20-21.csv',
      Buffer.from(`${[header, ...cxp].join('\n')}\n\n`, 'latin1'),
    );
    const again = (await p.finalResult('support-document', 'cxp-20-21.csv', { timeoutMs: 60_000 }))
      .documents as unknown as Doc[];
    expect(again.map((d) => [d.status, d.errors.map((e) => e.message)])).toEqual([
      [
        'duplicate',
        [
          `The document with ERP key ERP-CXP-5521 was issued already as ${issuedAs} (accepted from cxp-20.csv); not sent again.`,
        ],
      ],
    ]);
    expect(await emulator.client.issued({ kind: 'support-document' })).toHaveLength(1);
  }, 180_000);
}

describe('a service-numbered document is issued once per ERP key [sqlite]', () => {
  suite(async () => undefined);
});

describePg('a service-numbered document is issued once per ERP key [postgres]', () => {
  // a database per test (each test's receipts start from an empty ledger), dropped at the end
  const made: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  }, 60_000);
  suite(async () => {
    const db = await createDatabase();
    made.push(db);
    return { url: db.url };
  });
});
