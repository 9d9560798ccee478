import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceivedPuller } from '../../src/received/puller.js';
import { receivedKey } from '../../src/received/received-files.js';
import { RECEIVED_INDEX_COLUMNS } from '../../src/received/received-index.js';
import {
  TODAY,
  counts,
  harness,
  listFiles,
  readIndex,
  readLog,
  seedDocs,
  type Harness,
} from './helpers.js';

const WINDOW = { from: '2026-03-01', to: TODAY };
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

function puller(x: Harness): ReceivedPuller {
  return new ReceivedPuller({
    ledger: x.ledger,
    client: x.client,
    config: x.config,
    logger: x.logger,
    today: () => TODAY,
  });
}

function main(x: Harness) {
  return x.config.companies[0];
}

describe('ReceivedPuller against the emulator', () => {
  it('a first pull writes every received document once, over several pages and months', async () => {
    h = await harness();
    const progress: string[] = [];
    const result = await puller(h).pullCompany(main(h), WINDOW, {
      onPage: (p) => progress.push(`${p.window.from} ${p.page}/${p.totalPages}`),
    });
    const docs = seedDocs();
    expect(result).toMatchObject({ complete: true, newDocs: 40, seenBefore: 0, cursor: TODAY });
    // March (17) and April (16) need 3 pages each at per_page 7, then the re-read of page 1; May fits on one page.
    expect(progress.filter((p) => p.startsWith('2026-03'))).toEqual([
      '2026-03-01 1/3',
      '2026-03-01 2/3',
      '2026-03-01 3/3',
      '2026-03-01 1/3',
    ]);
    expect(result.pages).toBe(9);

    const dir = path.join(h.outbox, 'main');
    const files = listFiles(dir);
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(40);
    expect(files.filter((f) => f.endsWith('.pdf'))).toHaveLength(
      docs.filter((d, i) => i % 3 === 0).length,
    );
    expect(files).toContain('2026-03/FE2000_' + docs[0].cufe.slice(0, 12) + '.json');
    for (const d of docs) expect(await h.ledger.seenReceived('main', receivedKey(d))).toBe(true);

    const index = readIndex(dir);
    expect(index.header).toEqual([...RECEIVED_INDEX_COLUMNS]);
    expect(index.rows).toHaveLength(40);
    expect([...counts(index.rows.map((r) => r.cufe)).values()].every((n) => n === 1)).toBe(true);
    expect(await h.ledger.getCursor('main')).toBe(TODAY);
    const pull = (await h.ledger.statusSummary()).lastPulls.find((p) => p.company === 'main');
    expect(pull?.data).toMatchObject({
      window: '2026-03-01..2026-05-20',
      new: 40,
      seenBefore: 0,
      errors: 1,
    });

    const line = readLog(h.logFile).find((l) => l.msg === 'received pull finished');
    expect(line).toMatchObject({
      company: 'main',
      window: '2026-03-01..2026-05-20',
      pages: 9,
      new: 40,
      seenBefore: 0,
      errors: 1,
    });
  });

  it('each document is written as received: the JSON record whole, the PDF decoded byte for byte', async () => {
    h = await harness();
    await puller(h).pullCompany(main(h), WINDOW);
    const dir = path.join(h.outbox, 'main');
    const index = readIndex(dir);
    for (const d of seedDocs()) {
      const row = index.rows.find((r) => r.cufe === receivedKey(d));
      expect(row).toBeDefined();
      expect(JSON.parse(fs.readFileSync(path.join(dir, row!.jsonFile), 'utf8'))).toEqual(d);
      if (row!.pdfFile !== '') {
        expect(
          fs
            .readFileSync(path.join(dir, row!.pdfFile))
            .equals(Buffer.from(d.pdfDocument, 'base64')),
        ).toBe(true);
      }
    }
    const withPdf = index.rows.filter((r) => r.pdfFile !== '');
    expect(withPdf).toHaveLength(14);
    expect(
      fs.readFileSync(path.join(dir, withPdf[0].pdfFile)).subarray(0, 5).toString('latin1'),
    ).toBe('%PDF-');
  });

  it('a pdfDocument that is not a PDF is reported in the log and the index, and not written', async () => {
    h = await harness();
    const result = await puller(h).pullCompany(main(h), WINDOW);
    const dir = path.join(h.outbox, 'main');
    expect(listFiles(dir).filter((f) => f.includes('FE2005'))).toEqual([
      expect.stringMatching(/^2026-03\/FE2005_[0-9a-f]{12}\.json$/),
    ]);
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'EDOC_RECEIVED_BAD_PDF', doc: 'FE2005' }),
    ]);
    const row = readIndex(dir).rows.find((r) => r.documentNumber === 'FE2005');
    expect(row).toMatchObject({
      pdfFile: '',
      note: expect.stringContaining('not decode to a PDF'),
    });
    const warn = readLog(h.logFile).filter((l) => l.code === 'EDOC_RECEIVED_BAD_PDF');
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ company: 'main', doc: 'FE2005', level: 'warn' });
  });

  it('the index opens cleanly in a spreadsheet: BOM, CRLF, quoting, formulas neutralised, ERP columns', async () => {
    h = await harness();
    await puller(h).pullCompany(main(h), WINDOW);
    const index = readIndex(path.join(h.outbox, 'main'));
    expect(index.raw.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(true);
    const text = index.raw.toString('utf8');
    expect(text.split('\r\n')).toHaveLength(42);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    const tricky = index.rows.find((r) => r.documentNumber === 'FE2011');
    expect(tricky?.providerName).toBe('\'=HYPERLINK("http://x";"Proveedor; con "comillas"")');
    const first = index.rows.find((r) => r.documentNumber === 'FE2000');
    expect(first).toMatchObject({
      documentDate: '2026-03-01',
      providerIdentification: '800197268',
      providerName: 'Papeleria El Centro SAS',
      documentType: 'Factura electrónica de venta',
      typeCode: '01',
      currency: 'COP',
      value: '100000.00',
    });
    expect(index.rows.find((r) => r.documentNumber === 'FE2009')?.currency).toBe('USD');
    expect(index.rows.find((r) => r.documentNumber === 'FE2001')?.value).toBe('101234.50');
  });

  it('a document with an empty cufe is identified by its documentId', async () => {
    h = await harness();
    await puller(h).pullCompany(main(h), WINDOW);
    const doc = seedDocs()[7];
    expect(doc.cufe).toBe('');
    const dir = path.join(h.outbox, 'main');
    const row = readIndex(dir).rows.find((r) => r.documentNumber === 'FE2007');
    expect(row?.cufe).toBe(doc.documentId);
    expect(row?.jsonFile).toBe(`2026-03/FE2007_${doc.documentId.slice(0, 12)}.json`);
    expect(await h.ledger.seenReceived('main', doc.documentId)).toBe(true);
  });

  it('a second pull of the same window writes nothing new', async () => {
    h = await harness();
    const p = puller(h);
    await p.pullCompany(main(h), WINDOW);
    const dir = path.join(h.outbox, 'main');
    const before = listFiles(dir).map((f) => [f, fs.statSync(path.join(dir, f)).mtimeMs]);
    const indexBefore = readIndex(dir).raw;
    // A new puller, as after a restart: nothing cached in memory.
    const again = await puller(h).pullCompany(main(h), WINDOW);
    expect(again).toMatchObject({ complete: true, newDocs: 0, seenBefore: 40, errors: [] });
    expect(listFiles(dir).map((f) => [f, fs.statSync(path.join(dir, f)).mtimeMs])).toEqual(before);
    expect(readIndex(dir).raw.equals(indexBefore)).toBe(true);
  });

  it('an index deleted or edited between pulls is read again: rows of the window come back, once, no file rewritten', async () => {
    h = await harness();
    const p = puller(h);
    await p.pullCompany(main(h), WINDOW);
    const dir = path.join(h.outbox, 'main');
    fs.rmSync(path.join(dir, 'received.csv'));
    const again = await p.pullCompany(main(h), WINDOW);
    expect(again).toMatchObject({ newDocs: 0, seenBefore: 40 });
    expect(readIndex(dir).rows).toHaveLength(40);
    // Edited by hand (a row removed): the same puller notices and adds back only what is missing.
    const text = fs.readFileSync(path.join(dir, 'received.csv'), 'utf8').split('\r\n');
    fs.writeFileSync(
      path.join(dir, 'received.csv'),
      [...text.slice(0, 5), ...text.slice(6)].join('\r\n'),
    );
    await p.pullCompany(main(h), WINDOW);
    const rows = readIndex(dir).rows;
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.cufe)).size).toBe(40);
  });

  it('an empty window answers total_pages 0: one request, nothing written, the window complete', async () => {
    h = await harness();
    const pages: number[] = [];
    const result = await puller(h).pullCompany(
      main(h),
      { from: '2026-06-01', to: '2026-06-30' },
      { onPage: (p) => pages.push(p.totalPages) },
    );
    expect(result).toMatchObject({
      complete: true,
      pages: 1,
      newDocs: 0,
      seenBefore: 0,
      errors: [],
    });
    expect(pages).toEqual([0]);
    expect(readIndex(path.join(h.outbox, 'main')).rows).toEqual([]);
    expect(listFiles(path.join(h.outbox, 'main'))).toEqual(['received.csv']);
  });

  it('the cursor moves only over months joined to it: a backfill after a gap leaves it alone', async () => {
    h = await harness();
    const p = puller(h);
    await p.pullCompany(main(h), { from: '2026-04-01', to: '2026-04-30' });
    expect(await h.ledger.getCursor('main')).toBeUndefined();
    await p.pullCompany(main(h), { from: '2026-03-01', to: '2026-03-15' });
    expect(await h.ledger.getCursor('main')).toBe('2026-03-15');
    const r = await p.pullCompany(main(h), { from: '2026-03-10', to: '2026-04-30' });
    expect(r).toMatchObject({ newDocs: 17 - 8, cursor: '2026-04-30' });
  });

  it('a window that is not yyyy-MM-dd is refused before any request', async () => {
    h = await harness();
    const result = await puller(h).pullCompany(main(h), { from: '2026-05-01', to: '2026-04-01' });
    expect(result).toMatchObject({ complete: false, stoppedBy: 'bad-window', pages: 0 });
    expect(result.errors[0].code).toBe('EDOC_RECEIVED_BAD_WINDOW');
    expect(h.emulator.stats.snapshot().totalRequests).toBe(0);
  });
});
