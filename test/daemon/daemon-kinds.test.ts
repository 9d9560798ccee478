/**
 * PRODUCT "Outputs" and "Delivery rules" through the real daemon (a child
 * process) against the emulator over HTTP: every kind goes in as JSON, every
 * document ends in NAME.result.json, and the outbox agrees with what the
 * emulator issued.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  COMPANY_MAIN,
  type DaemonProcess,
  type Project,
  type ResultJson,
  sleep,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import {
  creditNote,
  debitNote,
  invoice,
  jsonlText,
  jsonText,
  payroll,
  pos,
  supportAdjustment,
  supportDocument,
} from '../helpers/documents.js';

let emulator: TestEmulator;
let project: Project;
let daemon: DaemonProcess;

const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project, daemon } = await resources.runningDaemon());
}, 120_000);

function statuses(result: ResultJson): string[] {
  return result.documents.map((d) => d.status);
}

/** The outbox keys `main/<kind>/<prefix>/<number>` of accepted documents. */
function acceptedKeys(results: ResultJson[]): string[] {
  return results.flatMap((r) =>
    r.documents.filter((d) => d.status === 'accepted').map((d) => d.key ?? `?${r.file}#${d.index}`),
  );
}

/** The original moved to the archive (the move follows the final result.json by a moment). */
async function archived(kind: string, name: string): Promise<boolean> {
  const moved = () =>
    existsSync(path.join(project.outbox(kind), 'archive', name)) &&
    !existsSync(path.join(project.inbox(kind), name));
  const deadline = Date.now() + 5_000;
  while (!moved() && Date.now() < deadline) await sleep(50);
  return moved();
}

describe('the daemon with JSON inputs of every kind', () => {
  const results: ResultJson[] = [];

  test("every kind is accepted, reported in NAME.result.json and archived; the emulator issued exactly the outbox's documents", async () => {
    // Wave 1: the originals that notes refer to, a payroll, a POS document and a .jsonl of invoices.
    await project.drop('invoice', 'sales-1.json', jsonText(invoice(990_000_001)));
    await project.drop(
      'invoice',
      'sales-2.jsonl',
      jsonlText([invoice(990_000_002), invoice(990_000_003), invoice(990_000_004)]),
    );
    await project.drop(
      'support-document',
      'support-1.json',
      jsonText([supportDocument(990_000_001)]),
    );
    await project.drop('payroll', 'payroll-1.json', jsonText(payroll(1001)));
    await project.drop('debit-note', 'debit-1.json', jsonText(debitNote(1, 'SETP990000001')));
    await project.drop('pos', 'pos-1.json', jsonText(pos(1001)));
    const wave1: [string, string, number][] = [
      ['invoice', 'sales-1.json', 1],
      ['invoice', 'sales-2.jsonl', 3],
      ['support-document', 'support-1.json', 1],
      ['payroll', 'payroll-1.json', 1],
      ['debit-note', 'debit-1.json', 1],
      ['pos', 'pos-1.json', 1],
    ];
    for (const [kind, name, total] of wave1) {
      const result = await project.finalResult(kind, name);
      expect(result.counts, `${kind}/${name}`).toMatchObject({
        total,
        accepted: total,
        rejected: 0,
        invalid: 0,
        failed: 0,
      });
      expect(statuses(result)).toEqual(Array(total).fill('accepted'));
      expect(result.kind).toBe(kind);
      expect(result.company).toBe('main');
      results.push(result);
    }
    const jsonl = results[1];
    expect(jsonl.documents.map((d) => d.source.lines)).toEqual([[1], [2], [3]]);

    // Wave 2: notes that refer to accepted documents.
    const ds = (await emulator.client.issued({ kind: 'support-document' })).find(
      (d) => d.documentNumber === 'DS990000001',
    );
    expect(ds, 'the support document was issued').toBeDefined();
    const invoiceCufe = (await emulator.client.issued({ kind: 'invoice' })).find(
      (d) => d.documentNumber === 'SETP990000001',
    )?.cufe;
    await project.drop(
      'credit-note',
      'credit-1.json',
      jsonText(creditNote(1, 'SETP990000001', invoiceCufe)),
    );
    await project.drop(
      'support-adjustment',
      'adjust-1.json',
      jsonText(supportAdjustment(1, 'DS990000001', ds?.cufe ?? '')),
    );
    for (const [kind, name] of [
      ['credit-note', 'credit-1.json'],
      ['support-adjustment', 'adjust-1.json'],
    ]) {
      const result = await project.finalResult(kind, name);
      expect(result.counts, `${kind}/${name}`).toMatchObject({ total: 1, accepted: 1 });
      results.push(result);
    }

    for (const [kind, name] of [
      ...wave1.map(([k, n]) => [k, n]),
      ['credit-note', 'credit-1.json'],
      ['support-adjustment', 'adjust-1.json'],
    ]) {
      expect(await archived(kind, name), `${kind}/${name} archived`).toBe(true);
    }

    // The emulator's issued list and the outbox: the same keys, each once.
    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    const emulatorKeys = issued.map((d) => `main/${d.kind}/${d.prefix}/${d.number}`).sort();
    const outboxKeys = acceptedKeys(results).sort();
    expect(outboxKeys).toHaveLength(10);
    expect(emulatorKeys).toEqual(outboxKeys);
    expect(new Set(emulatorKeys).size).toBe(emulatorKeys.length);
    expect((await emulator.client.documents()).filter((d) => !d.accepted)).toEqual([]);
  });

  test('the same content dropped again is reported as duplicate content and not sent again', async () => {
    const before = (await emulator.client.documents()).length;
    await project.drop('invoice', 'sales-1-again.json', jsonText(invoice(990_000_001)));
    const result = await project.finalResult('invoice', 'sales-1-again.json');
    expect(result.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
    expect(result.error?.message).toContain('sales-1.json');
    expect(result.counts.total).toBe(0);
    expect(await archived('invoice', 'sales-1-again.json')).toBe(true);
    expect((await emulator.client.documents()).length).toBe(before);
  });

  test('a document whose number was accepted in an earlier file is reported duplicate without a request', async () => {
    const statsBefore = await emulator.client.stats();
    const e1Before = sum(statsBefore.requests.E1);
    // Different content (another CorrelationDocumentId), the same SETP990000002 as in sales-2.jsonl.
    const again = invoice(990_000_002);
    again.CorrelationDocumentId = 'ERP-another-export';
    await project.drop('invoice', 'sales-3.json', jsonText([again, invoice(990_000_005)]));
    const result = await project.finalResult('invoice', 'sales-3.json');
    expect(statuses(result)).toEqual(['duplicate', 'accepted']);
    expect(result.counts).toMatchObject({ total: 2, duplicate: 1, accepted: 1 });
    expect(result.documents[0].key).toBe('main/invoice/SETP/990000002');
    expect(result.documents[0].errors.map((e) => e.code)).toContain('EDOC_LEDGER_DUPLICATE_KEY');
    const statsAfter = await emulator.client.stats();
    expect(sum(statsAfter.requests.E1) - e1Before).toBe(1);
    expect(
      (await emulator.client.issued()).filter((d) => d.documentNumber === 'SETP990000002'),
    ).toHaveLength(1);
  });

  test('the same number twice in one file: one accepted, the other duplicate, issued once', async () => {
    const twin = invoice(990_000_011);
    twin.CorrelationDocumentId = 'ERP-twin';
    await project.drop('invoice', 'twins.json', jsonText([invoice(990_000_011), twin]));
    const result = await project.finalResult('invoice', 'twins.json');
    expect(statuses(result).sort()).toEqual(['accepted', 'duplicate']);
    expect(
      (await emulator.client.issued()).filter((d) => d.documentNumber === 'SETP990000011'),
    ).toHaveLength(1);
  });

  test('an invalid document never reaches the emulator: invalid with its field path in errors.csv, and a retry file holding exactly it', async () => {
    const before = (await emulator.client.documents()).length;
    const bad = invoice(990_000_006);
    bad.ReasonCredit = 'no debería estar aquí';
    await project.drop('invoice', 'mixed.jsonl', jsonlText([invoice(990_000_007), bad]));
    const result = await project.finalResult('invoice', 'mixed.jsonl');
    expect(statuses(result)).toEqual(['accepted', 'invalid']);
    expect(result.documents[1].errors.some((e) => e.field === 'ReasonCredit')).toBe(true);
    const errorsCsv = await readFile(
      path.join(project.outbox('invoice'), 'mixed.errors.csv'),
      'utf8',
    );
    expect(errorsCsv).toContain('ReasonCredit');
    expect(errorsCsv).toContain('main/invoice/SETP/990000006');
    const retry = await readFile(path.join(project.outbox('invoice'), 'mixed.retry.jsonl'), 'utf8');
    const retried = retry
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(retried).toEqual([bad]);
    const docs = await emulator.client.documents();
    expect(docs.length).toBe(before + 1);
    expect(docs.some((d) => d.documentNumber === 'SETP990000006')).toBe(false);
  });

  test("the log holds every document's final state once, with file, kind, company, key, status and attempts", async () => {
    const finals = daemon.logLines().filter((l) => l.msg === 'document final');
    const byDoc = new Map<string, number>();
    // twins.json holds one number twice: its two lines differ in status.
    for (const l of finals) {
      const id = `${String(l.file)}#${String(l.doc)}#${String(l.status)}`;
      byDoc.set(id, (byDoc.get(id) ?? 0) + 1);
    }
    expect([...byDoc.values()].every((n) => n === 1)).toBe(true);
    const line = (file: string, doc: string) =>
      finals.find((l) => l.file === file && l.doc === doc);
    expect(line('sales-1.json', 'main/invoice/SETP/990000001')).toMatchObject({
      level: 'info',
      kind: 'invoice',
      company: 'main',
      status: 'accepted',
      attempts: 1,
    });
    expect(line('sales-3.json', 'main/invoice/SETP/990000002')).toMatchObject({
      status: 'duplicate',
    });
    expect(line('mixed.jsonl', 'main/invoice/SETP/990000006')).toMatchObject({
      status: 'invalid',
      kind: 'invoice',
    });
    expect(line('mixed.jsonl', 'main/invoice/SETP/990000007')).toMatchObject({
      status: 'accepted',
    });
  });

  test('a broken JSON file gets a file-level error and is archived, while a good file dropped with it is accepted', async () => {
    await Promise.all([
      project.drop('invoice', 'broken.json', '{"Currency": "COP", "SerieNumber": '),
      project.drop('invoice', 'good.json', jsonText(invoice(990_000_008))),
    ]);
    const broken = await project.finalResult('invoice', 'broken.json');
    expect(broken.error?.code).toMatch(/^EDOC_READ_/);
    expect(broken.counts.total).toBe(0);
    expect(broken.documents).toEqual([]);
    expect(existsSync(path.join(project.outbox('invoice'), 'broken.errors.csv'))).toBe(true);
    expect(await archived('invoice', 'broken.json')).toBe(true);
    const good = await project.finalResult('invoice', 'good.json');
    expect(statuses(good)).toEqual(['accepted']);
    expect(daemon.running).toBe(true);
  });

  test('a directory and a symbolic link in the inbox are left alone with one warning line each', async () => {
    const inbox = project.inbox('invoice');
    const target = path.join(project.dir, 'elsewhere.json');
    await writeFile(target, jsonText(invoice(990_000_009)));
    await mkdir(path.join(inbox, 'a-folder'));
    await symlink(target, path.join(inbox, 'link.json'));
    const warned = (name: string) =>
      daemon.logLines().filter((l) => l.level === 'warn' && JSON.stringify(l).includes(name));
    await daemon.waitForLog((l) => l.level === 'warn' && JSON.stringify(l).includes('link.json'));
    await daemon.waitForLog((l) => l.level === 'warn' && JSON.stringify(l).includes('a-folder'));
    // Another file afterwards proves the watcher went on; by then any repeated warning would be in the log.
    await project.drop('invoice', 'after.json', jsonText(invoice(990_000_010)));
    await project.finalResult('invoice', 'after.json');
    expect(warned('link.json')).toHaveLength(1);
    expect(warned('a-folder')).toHaveLength(1);
    expect(existsSync(path.join(inbox, 'link.json'))).toBe(true);
    expect(existsSync(path.join(inbox, 'a-folder'))).toBe(true);
    expect(existsSync(path.join(project.outbox('invoice'), 'link.result.json'))).toBe(false);
    expect(
      (await emulator.client.documents()).some((d) => d.documentNumber === 'SETP990000009'),
    ).toBe(false);
    expect(await readdir(inbox)).toEqual(expect.arrayContaining(['a-folder', 'link.json']));
  });
});

function sum(byStatus: Record<string, number> | undefined): number {
  return Object.values(byStatus ?? {}).reduce((a, b) => a + b, 0);
}
