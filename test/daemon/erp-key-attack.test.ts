/**
 * The ERP-key dedupe (ledger/erp-keys.ts) tried from outside: the key written otherwise, the same key in
 * two companies, a first copy refused, a key in Windows-1252 and in UTF-8. Real daemon, real emulator, the
 * shipped mappings, the SQLite ledger. What counts as one key: the cells the ERP wrote, blanks around them
 * ignored (the framer trims them), nothing else folded: "01-1045" is another receipt (a wrong duplicate
 * would silently drop a legal document), while the same text in another file encoding is the same key.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, ROOT } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { COMPANY_OTHER } from '../helpers/test-emulator.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const kinds = {
  pos: { mapping: path.join(ROOT, 'config/mappings/erp/loyverse-pos.yaml') },
  'support-document': { mapping: path.join(ROOT, 'config/mappings/support-document.csv.yaml') },
};

interface Doc {
  status: string;
  source: { erpKey?: string };
  errors: { code: string; message: string }[];
}

/** The Loyverse sample's header and the rows of one receipt. */
async function loyverse(): Promise<{ header: string; rows: (receipt: string) => string[] }> {
  const text = await readFile(
    path.join(ROOT, 'examples/erp/loyverse/loyverse-recibos-por-articulo.csv'),
    'utf8',
  );
  const [header, ...rows] = text.split('\n').filter((l) => l !== '');
  return { header, rows: (receipt) => rows.filter((r) => r.split(',')[1] === receipt) };
}

describe('the ERP key, attacked from outside [sqlite]', () => {
  test('blanks around the key are the same receipt; a leading zero, another company or a refused first copy are not', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({ companies: [COMPANY_MAIN, COMPANY_OTHER], kinds, stableMs: 200 });
    await startDaemon();
    const { header, rows } = await loyverse();
    const file = (lines: string[]): string => `${[header, ...lines].join('\n')}\n`;
    const statuses = async (name: string, company: string): Promise<[string?, string?][]> =>
      (
        (await p.finalResult('pos', name, { company, timeoutMs: 60_000 }))
          .documents as unknown as Doc[]
      ).map((d) => [d.source.erpKey, d.status]);

    // receipt 1-1045 issued for main; 1-1048 (1-1045's rows) refused: its date is no date
    const bad = rows('1-1045').map((r) =>
      r.replace('1-1045', '1-1048').replace(/^[^,]*/, '31/02/2026 10:00'),
    );
    await p.drop('pos', 'main-21.csv', file([...rows('1-1045'), ...bad]), 'main');
    expect(await statuses('main-21.csv', 'main')).toEqual([
      ['1-1045', 'accepted'],
      ['1-1048', 'invalid'],
    ]);

    // the same receipt numbers in the other company's own export: its own receipts, issued
    await p.drop('pos', 'other-21.csv', file([...rows('1-1045'), ...rows('1-1042')]), 'other');
    expect(await statuses('other-21.csv', 'other')).toEqual([
      ['1-1045', 'accepted'],
      ['1-1042', 'accepted'],
    ]);

    // main again: " 1-1045 " (blanks around) is 1-1045; "01-1045" is another receipt; 1-1048 corrected is sent
    const padded = rows('1-1045').map((r) => r.replace(',1-1045,', ', 1-1045 ,'));
    const zero = rows('1-1045').map((r) => r.replace(',1-1045,', ',01-1045,'));
    const fixed = rows('1-1045').map((r) => r.replace('1-1045', '1-1048'));
    await p.drop('pos', 'main-21-22.csv', file([...padded, ...zero, ...fixed]), 'main');
    const again = await p.finalResult('pos', 'main-21-22.csv', {
      company: 'main',
      timeoutMs: 60_000,
    });
    expect(
      (again.documents as unknown as Doc[]).map((d) => [
        d.source.erpKey,
        d.status,
        d.errors[0]?.code,
      ]),
    ).toEqual([
      ['1-1045', 'duplicate', 'EDOC_LEDGER_DUPLICATE_ERP_KEY'],
      ['01-1045', 'accepted', undefined],
      ['1-1048', 'accepted', undefined],
    ]);
    // main: 1-1045, 01-1045, 1-1048; other: 1-1045, 1-1042
    expect(await emulator.client.issued({ kind: 'pos' })).toHaveLength(5);
  }, 240_000);

  test('a support document keyed in Windows-1252, exported again in UTF-8, is the same key', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({ companies: [COMPANY_MAIN], kinds, stableMs: 200 });
    await startDaemon();
    const text = await readFile(path.join(ROOT, 'examples/support-documents.csv'), 'latin1');
    const [header, ...rows] = text.split('\n').filter((r) => r !== '');
    const cxp = rows
      .filter((r) => r.includes(';ERP-CXP-5521;'))
      .map((r) => r.replace(';ERP-CXP-5521;', ';CXP-AÑO-5521;'));
    expect(cxp).toHaveLength(2);
    const body = `${[header, ...cxp].join('\n')}\n`;
    await p.drop('support-document', 'cxp-1252.csv', Buffer.from(body, 'latin1'));
    const first = await p.finalResult('support-document', 'cxp-1252.csv', { timeoutMs: 60_000 });
    expect((first.documents as unknown as Doc[]).map((d) => [d.source.erpKey, d.status])).toEqual([
      ['CXP-AÑO-5521', 'accepted'],
    ]);
    await p.drop('support-document', 'cxp-utf8.csv', Buffer.from(body, 'utf8'));
    const again = await p.finalResult('support-document', 'cxp-utf8.csv', { timeoutMs: 60_000 });
    expect(
      (again.documents as unknown as Doc[]).map((d) => [
        d.source.erpKey,
        d.status,
        d.errors[0]?.code,
      ]),
    ).toEqual([['CXP-AÑO-5521', 'duplicate', 'EDOC_LEDGER_DUPLICATE_ERP_KEY']]);
    expect(await emulator.client.issued({ kind: 'support-document' })).toHaveLength(1);
  }, 180_000);
  test('a copy held while its first copy is in doubt: other files go on; resolved as issued, the copy is a duplicate', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
      cli,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds,
      stableMs: 200,
      faults: { dropAfterCommitRate: 1 },
    });
    await startDaemon();
    const { header, rows } = await loyverse();
    const file = (lines: string[]): string => `${[header, ...lines].join('\n')}\n`;
    // issued by the service, its answer lost: in doubt
    await p.drop('pos', 'caja-21.csv', file(rows('1-1045')));
    const first = await p.finalResult('pos', 'caja-21.csv', { timeoutMs: 60_000 });
    expect(first.documents.map((d) => d.status)).toEqual(['in-doubt']);
    const [issued] = await emulator.client.issued({ kind: 'pos' });
    await emulator.client.setFaults({});
    // the overlapping export: 1-1045 waits, 1-1042 (another receipt) goes, another file is not held up
    await p.drop('pos', 'caja-21-22.csv', file([...rows('1-1045'), ...rows('1-1042')]));
    await p.drop(
      'pos',
      'caja-22.csv',
      file(rows('1-1042').map((r) => r.replace('1-1042', '1-1049'))),
    );
    const other = await p.finalResult('pos', 'caja-22.csv', { timeoutMs: 60_000 });
    expect(other.documents.map((d) => d.status)).toEqual(['accepted']);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await emulator.client.issued({ kind: 'pos' })).toHaveLength(3); // 1-1045 once, 1-1042, 1-1049
    expect(await p.result('pos', 'caja-21-22.csv')).toSatisfy(
      (r) => r === undefined || r.documents[0].status === 'pending',
    );
    // the held copy is neither failed nor in doubt: retry and resolve leave it alone
    const held = await cli(['retry', '--document', 'caja-21-22.csv#0']);
    const heldResolve = await cli(['resolve', '--document', 'caja-21-22.csv#0', '--issued']);
    expect([held.code, held.stderr]).toEqual([
      1,
      expect.stringContaining(
        'nothing to re-queue for caja-21-22.csv#0: no failed document matches',
      ),
    ]);
    expect([heldResolve.code, heldResolve.stderr]).toEqual([
      1,
      expect.stringContaining(
        'nothing to resolve for caja-21-22.csv#0: no in-doubt document matches',
      ),
    ]);
    const resolved = await cli([
      'resolve',
      '--document',
      `caja-21.csv#${first.documents[0].index}`,
      '--issued',
      '--number',
      `${issued.prefix}${issued.number}`,
    ]);
    expect(resolved.code, resolved.stderr).toBe(0);
    // the copy held back for its ERP key is looked at now (the daemon is told), not at its next look a minute on
    expect(resolved.stdout).toContain('1 later copy(ies) of the same ERP document');
    expect(resolved.stdout).toMatch(/the running daemon \(pid \d+\) was told to look at them/);
    const again = await p.finalResult('pos', 'caja-21-22.csv', { timeoutMs: 20_000 });
    expect(
      (again.documents as unknown as Doc[]).map((d) => [
        d.source.erpKey,
        d.status,
        d.errors[0]?.code,
      ]),
    ).toEqual([
      ['1-1045', 'duplicate', 'EDOC_LEDGER_DUPLICATE_ERP_KEY'],
      ['1-1042', 'accepted', undefined],
    ]);
    expect(await emulator.client.issued({ kind: 'pos' })).toHaveLength(3);
  }, 240_000);
  test("a POS adjustment note carrying its sale's ticket is not a duplicate of the sale", async ({
    daemonProject,
  }) => {
    // the shipped POS mapping, and the note's reference to the document it corrects (column `afecta`)
    const shipped = await readFile(path.join(ROOT, 'config/mappings/pos.csv.yaml'), 'utf8');
    expect(shipped).toContain('      codigoVenta: ticket\n');
    const dir = await mkdtemp(path.join(tmpdir(), 'erp-key-pos-'));
    const mapping = path.join(dir, 'pos.csv.yaml');
    await writeFile(
      mapping,
      shipped.replace(
        '      codigoVenta: ticket\n',
        '      codigoVenta: ticket\n    documentosAfectados:\n      - numeroDocumento: afecta\n',
      ),
    );
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds: { pos: { mapping } },
      stableMs: 200,
    });
    await startDaemon();
    // the shipped sample (Windows-1252), numbered by the service: `numero` blank, the key is prefijo + ticket
    const text = await readFile(path.join(ROOT, 'examples/pos.csv'), 'latin1');
    const [header, ...rows] = text.split(/\r?\n/).filter((r) => r !== '');
    const ticket = rows
      .filter((r) => r.includes(';T-55012;'))
      .map((r) => r.replace('POS;101;', 'POS;;'));
    const csv = (lines: string[], end = '\n'): Buffer =>
      Buffer.from(`${[`${header};afecta`, ...lines].join('\n')}${end}`, 'latin1');
    await p.drop('pos', 'ventas-21.csv', csv(ticket.map((r) => `${r};`)));
    const sale = await p.finalResult('pos', 'ventas-21.csv', { timeoutMs: 60_000 });
    expect(sale.documents.map((d) => d.status)).toEqual(['accepted']);
    const issued = sale.documents[0].issued as { prefix: string; number: string };
    // the full refund of ticket T-55012 later that day: a credit adjustment note (tipo from the file name)
    // that the till writes under the sale's ticket
    const refund = ticket.map(
      (r) => `${r.replace(';14:32:10;', ';17:05:00;')};${issued.prefix}${issued.number}`,
    );
    await p.drop('pos', 'nota-ajuste-credito-21.csv', csv(refund));
    const note = await p.finalResult('pos', 'nota-ajuste-credito-21.csv', { timeoutMs: 60_000 });
    expect(note.documents.map((d) => [d.status, d.errors])).toEqual([['accepted', []]]);
    // the note exported again (other bytes) is the note's duplicate
    await p.drop('pos', 'nota-ajuste-credito-21-22.csv', csv(refund, '\n\n'));
    const again = await p.finalResult('pos', 'nota-ajuste-credito-21-22.csv', {
      timeoutMs: 60_000,
    });
    expect(again.documents.map((d) => [d.status, d.errors[0]?.code])).toEqual([
      ['duplicate', 'EDOC_LEDGER_DUPLICATE_ERP_KEY'],
    ]);
    const all = await emulator.client.issued({});
    expect(all.map((d) => d.kind).sort()).toEqual(['pos', 'pos-credit-note']);
  }, 180_000);
  test('overlapping exports under SIGKILL and lost answers: no receipt issued twice, none lost silently', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds,
      stableMs: 100,
      faults: { latencyMs: 150, dropAfterCommitRate: 0.15, resetRate: 0.1, randomSeed: 31 },
    });
    const { header, rows } = await loyverse();
    const receipt = (n: number): string[] =>
      rows('1-1045').map((r) => r.replace('1-1045', `1-${2000 + n}`));
    // six exports by overlapping ranges: export k holds receipts k .. k+4 (ten receipts in all)
    for (let k = 1; k <= 6; k++) {
      const lines = [k, k + 1, k + 2, k + 3, k + 4].flatMap(receipt);
      await p.drop('pos', `caja-${k}.csv`, `${[header, ...lines].join('\n')}\n`);
    }
    for (const wait of [700, 400, 900, 300]) {
      const daemon = await startDaemon();
      await new Promise((r) => setTimeout(r, wait));
      await daemon.kill();
    }
    await emulator.client.setFaults({});
    const daemon = await startDaemon();
    // settled: every document final, or pending behind an in-doubt copy of its receipt
    const ledger = path.join(p.stateDir, 'ledger.sqlite');
    const states = (): { erp_key: string; state: string }[] => {
      const db = new Database(ledger, { readonly: true, fileMustExist: true });
      try {
        return db.prepare('SELECT erp_key, state FROM documents').all() as {
          erp_key: string;
          state: string;
        }[];
      } finally {
        db.close();
      }
    };
    const deadline = Date.now() + 90_000;
    for (;;) {
      const now = states();
      const doubt = new Set(now.filter((d) => d.state === 'in-doubt').map((d) => d.erp_key));
      const open = now.filter(
        (d) => !['accepted', 'duplicate', 'in-doubt'].includes(d.state) && !doubt.has(d.erp_key),
      );
      if (now.length === 30 && open.length === 0) break;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(open)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    await daemon.stop();
    const all = await emulator.client.documents({ kind: 'pos', withRequest: true });
    const issued = new Map<string, number>();
    for (const d of all.filter((x) => x.accepted)) {
      const code = (d.request as { content: { documento: { cajaVenta: { codigoVenta: string } } } })
        .content.documento.cajaVenta.codigoVenta;
      issued.set(code, (issued.get(code) ?? 0) + 1);
    }
    const final = states();
    // (on this machine, seed 31: 5 accepted, 14 duplicate, 5 in doubt, 6 held behind those; the
    // kills land by time, so only what every run has is asserted)
    expect(Object.keys(p.ledgerStates()).sort()).toEqual(
      expect.arrayContaining(['accepted', 'duplicate']),
    );
    for (let n = 1; n <= 10; n++) {
      const code = `1-${2000 + n}`;
      const docs = final.filter((d) => JSON.parse(d.erp_key).includes(code));
      const accepted = docs.filter((d) => d.state === 'accepted').length;
      // never twice; issued and accepted in the ledger, or in doubt there (a person settles it)
      expect(issued.get(code) ?? 0, code).toBeLessThanOrEqual(1);
      expect(accepted, code).toBeLessThanOrEqual(1);
      if (accepted === 1) expect(issued.get(code), code).toBe(1);
      else
        expect(
          docs.some((d) => d.state === 'in-doubt'),
          code,
        ).toBe(true);
    }
  }, 300_000);
});
