/**
 * `edoc-bridge resend` (issue 15 item 10) with the real CLI as a child process beside the real daemon
 * and the emulator over HTTP: a file archived with a file-level mapping error is taken again once the
 * mapping is fixed; a file with accepted and rejected documents is taken again without sending the
 * accepted ones (with or without their own number) a second time.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  type DaemonProcess,
  eventually,
  type Project,
  type ResultJson,
  ROOT,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { jsonText, supportAdjustment, supportDocument } from '../helpers/documents.js';
import { toCsv } from '../map/helpers.js';

let emulator: TestEmulator;
let project: Project;
let daemon: DaemonProcess;
const resources = fileResources();
let mappingFile: string;

const SALES_MAPPING = path.join(ROOT, 'config/mappings/sales.csv.yaml');

/** The ERP's export: the reference sales layout except that its price column is called `valor_unitario`. */
const ventas = toCsv([
  {
    prefijo: 'SETP',
    numero: '990000501',
    fecha: '18/11/2026',
    cliente_tipo_doc: '31',
    cliente_doc: '800.197.268-4',
    cliente_nombre: 'Andina',
    descripcion: 'Café',
    cantidad: '2',
    valor_unitario: '10.000,00',
    iva: '19',
  },
  {
    prefijo: 'SETP',
    numero: '990000502',
    fecha: '18/11/2026',
    cliente_tipo_doc: '31',
    cliente_doc: '800.197.268-4',
    cliente_nombre: 'Andina',
    descripcion: 'Arroz',
    cantidad: '1',
    valor_unitario: '4.200,00',
    iva: '5',
  },
]);

/**
 * The newest file of that input name in the ledger and its final result.json — its own, not the earlier
 * file's under the same report name (told apart by startedAt).
 */
async function newestResult(
  kind: string,
  name: string,
  after: number,
): Promise<{ id: number; result: ResultJson }> {
  const row = await eventually(
    () =>
      project.ledgerQuery<{ id: number; report_name: string; started_at: number }>(
        `SELECT id, report_name, started_at FROM files WHERE name = ? AND id > ? ORDER BY id DESC LIMIT 1`,
        name,
        after,
      )[0],
    `a new file ${name} in the ledger`,
    30_000,
  );
  const result = await eventually(
    async () => {
      const r = await project.result(kind, `${row.report_name}.json`);
      return r !== undefined &&
        r.finishedAt !== null &&
        r.startedAt === new Date(row.started_at).toISOString()
        ? r
        : undefined;
    },
    `the final report of the new ${name}`,
    30_000,
  );
  return { id: row.id, result };
}

function fileId(name: string): number {
  return project.ledgerQuery<{ id: number }>(
    'SELECT max(id) AS id FROM files WHERE name = ?',
    name,
  )[0].id;
}

async function archived(kind: string, name: string): Promise<void> {
  await eventually(
    () =>
      project.ledgerQuery<{ a: string | null }>(
        'SELECT archived_path AS a FROM files WHERE name = ? ORDER BY id DESC LIMIT 1',
        name,
      )[0]?.a ?? undefined,
    `${name} archived`,
  );
  expect(existsSync(path.join(project.inbox(kind), name))).toBe(false);
}

beforeAll(async () => {
  await buildCli();
  ({ emulator, project } = await resources.daemonProject());
  mappingFile = path.join(project.dir, 'sales.csv.yaml');
  await writeFile(mappingFile, await readFile(SALES_MAPPING, 'utf8'));
  await project.writeConfig({ ...project.options, kinds: { invoice: { mapping: mappingFile } } });
  daemon = await resources.startDaemon(project);
}, 120_000);

describe('edoc-bridge resend', () => {
  test('a file archived with a file-level mapping error is taken again after the mapping is fixed (SIGHUP): its documents are accepted', async () => {
    await project.drop('invoice', 'ventas.csv', ventas);
    const first = await project.finalResult('invoice', 'ventas.csv');
    expect(first.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
    expect(first.counts.total).toBe(0);
    await archived('invoice', 'ventas.csv');
    const firstId = fileId('ventas.csv');

    // the fix: the mapping reads the ERP's column name; the daemon is told with SIGHUP
    await writeFile(
      mappingFile,
      (await readFile(SALES_MAPPING, 'utf8')).replace(
        'column: precio_unitario',
        'column: valor_unitario',
      ),
    );
    const logAt = daemon.logLines().length;
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    expect(daemon.logLines().length).toBeGreaterThan(logAt);

    const run = await runCli(project, ['resend', '--file', 'ventas.csv']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('copied back to');
    expect(run.stdout).toContain('EDOC_MAP_MISSING_COLUMN');
    expect(run.stdout).toContain(`the running daemon (pid ${daemon.child.pid})`);

    const again = await newestResult('invoice', 'ventas.csv', firstId);
    expect(again.result.error).toBeUndefined();
    expect(again.result.documents.map((d) => [d.key, d.status])).toEqual([
      ['main/invoice/SETP/990000501', 'accepted'],
      ['main/invoice/SETP/990000502', 'accepted'],
    ]);
    await archived('invoice', 'ventas.csv');
    const events = project
      .ledgerQuery<{ type: string }>(
        'SELECT type FROM events WHERE file_id = ? ORDER BY id',
        again.id,
      )
      .map((e) => e.type);
    expect(events).toContain('file-resend');

    // two archived files of that name now: the name alone is ambiguous, the archived copy is exact
    const twice = await runCli(project, ['resend', '--file', 'ventas.csv']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('ventas.csv matches 2 archived files');
    expect(twice.stderr).toContain(
      path.join(project.outbox('invoice'), 'archive', 'ventas (2).csv'),
    );
    const exact = await runCli(project, ['resend', '--file', 'ventas (2).csv']);
    expect(exact.code).toBe(1);
    expect(exact.stderr).toContain(
      'nothing to resend: every document of ventas (2).csv was accepted',
    );
  }, 60_000);

  test('accepted documents are reported duplicate and never sent again (own number or not); rejected or invalid ones are sent again; without a daemon the file waits', async () => {
    // DSX has no numbering range: the service answers DSX5 with ResultCode 400 (invalid, nothing
    // recorded: the spec's E5 row for numbering problems); the other two are accepted,
    // one numbered by the service (no own number), one with its own number.
    const docs = [
      supportDocument(undefined, 'sin-numero'),
      { ...supportDocument(5), SeriePrefix: 'DSX' },
      supportDocument(990_000_777),
    ];
    await project.drop('support-document', 'compras.json', jsonText(docs));
    const first = await project.finalResult('support-document', 'compras.json');
    expect(first.documents.map((d) => d.status)).toEqual(['accepted', 'invalid', 'accepted']);
    await archived('support-document', 'compras.json');
    const firstId = fileId('compras.json');
    const before = await emulator.client.documents({ kind: 'support-document' });
    expect(before.map((d) => [d.documentNumber, d.accepted])).toEqual(
      expect.arrayContaining([['DS990000777', true]]),
    );
    const e5Before = Object.values((await emulator.client.stats()).requests.E5 ?? {}).reduce(
      (a, b) => a + b,
      0,
    );

    await daemon.stop();
    const run = await runCli(project, ['resend', '--file', 'compras.json']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('1 rejected or invalid document(s) are sent again');
    expect(run.stdout).toContain(
      '2 accepted document(s) are reported duplicate and not sent again',
    );
    expect(run.stdout).toContain('no daemon is running: the file waits in');
    expect(existsSync(path.join(project.inbox('support-document'), 'compras.json'))).toBe(true);

    daemon = await resources.startDaemon(project);
    const again = await newestResult('support-document', 'compras.json', firstId);
    expect(again.result.error).toBeUndefined();
    expect(again.result.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      ['duplicate', ['EDOC_LEDGER_DUPLICATE_DOCUMENT']],
      ['invalid', expect.any(Array)],
      ['duplicate', ['EDOC_LEDGER_DUPLICATE_KEY']],
    ]);
    // the log holds each document's final state once, the ones settled by their earlier copy included
    const finals = daemon
      .logLines()
      .filter((l) => l.msg === 'document final' && l.file === 'compras.json');
    expect(finals.map((l) => [l.doc, l.status]).sort()).toEqual([
      ['#0', 'duplicate'],
      ['main/support-document/DS/990000777', 'duplicate'],
      ['main/support-document/DSX/5', 'invalid'],
    ]);
    // the emulator got exactly one more request: DSX5's; nothing accepted was issued twice
    const e5After = Object.values((await emulator.client.stats()).requests.E5 ?? {}).reduce(
      (a, b) => a + b,
      0,
    );
    expect(e5After - e5Before).toBe(1);
    const after = await emulator.client.documents({ kind: 'support-document' });
    // a 400 records nothing at the service: the list is unchanged, nothing was issued twice
    expect(after.length).toBe(before.length);
    expect(after.filter((d) => d.accepted).length).toBe(before.filter((d) => d.accepted).length);
  }, 60_000);

  test('an adjustment note dropped before its support document is invalid; once the document is accepted, resend gets the note accepted', async () => {
    const note = supportAdjustment(41, 'DS990000888', '');
    delete (note.DocumentReferences as Record<string, unknown>[])[0].DocumentReferredCUFE;
    await project.drop('support-adjustment', 'nota.json', jsonText([note]));
    const first = await project.finalResult('support-adjustment', 'nota.json');
    expect(first.documents.map((d) => d.status)).toEqual(['invalid']);
    await archived('support-adjustment', 'nota.json');
    const firstId = fileId('nota.json');

    await project.drop('support-document', 'ds-888.json', jsonText([supportDocument(990_000_888)]));
    expect(
      (await project.finalResult('support-document', 'ds-888.json')).documents.map((d) => d.status),
    ).toEqual(['accepted']);

    const run = await runCli(project, ['resend', '--file', 'nota.json']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('1 rejected or invalid document(s) are sent again');
    const again = await newestResult('support-adjustment', 'nota.json', firstId);
    expect(again.result.documents.map((d) => [d.key, d.status])).toEqual([
      ['main/support-adjustment/NDS/41', 'accepted'],
    ]);
  }, 60_000);

  test('refuses with the reason: an unknown name (2), a missing archived copy (1), in-doubt documents (1); a submitted file is taken from where it was', async () => {
    // a document without its own number whose answer is lost after the service issued it: in-doubt
    await emulator.client.setFaults({ dropAfterCommitRate: 1 });
    await project.drop(
      'support-document',
      'dudoso.json',
      jsonText([supportDocument(undefined, 'dudoso')]),
    );
    const doubtful = await project.finalResult('support-document', 'dudoso.json');
    await emulator.client.setFaults({});
    expect(doubtful.documents.map((d) => d.status)).toEqual(['in-doubt']);
    await archived('support-document', 'dudoso.json');
    const issuedBefore = (await emulator.client.documents()).length;
    const inDoubt = await runCli(project, ['resend', '--file', 'dudoso.json']);
    expect(inDoubt.code).toBe(1);
    expect(inDoubt.stderr).toContain('1 document(s) are in-doubt');
    expect(inDoubt.stderr).toContain('edoc-bridge resolve --file dudoso.json --issued');
    expect(existsSync(path.join(project.inbox('support-document'), 'dudoso.json'))).toBe(false);
    expect((await emulator.client.documents()).length).toBe(issuedBefore);

    const unknown = await runCli(project, ['resend', '--file', 'no-such.csv']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no input file named no-such.csv');

    const rows = project.ledgerQuery<{ id: number; archived_path: string }>(
      `SELECT id, archived_path FROM files WHERE name = 'compras.json' ORDER BY id DESC LIMIT 1`,
    );
    const archivedCopy = rows[0].archived_path;
    const bytes = await readFile(archivedCopy);
    await rm(archivedCopy);
    const missing = await runCli(project, ['resend', '--file', archivedCopy]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`the original to take again, ${archivedCopy}, is missing`);
    await writeFile(archivedCopy, bytes);

    // a file taken by `submit` from outside the inbox is not archived: its original is copied from where it was
    const outside = path.join(project.dir, 'fuera.json');
    await writeFile(outside, jsonText([{ ...supportDocument(7), SeriePrefix: 'DSX' }]));
    await daemon.stop();
    const submitted = await runCli(project, ['submit', outside, '--kind', 'support-document']);
    expect(submitted.code).toBe(1);
    daemon = await resources.startDaemon(project);
    const submittedId = fileId('fuera.json');
    const again = await runCli(project, ['resend', '--file', 'fuera.json']);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toContain(
      `${outside} copied back to ${path.join(project.inbox('support-document'), 'fuera.json')}`,
    );
    const taken = await newestResult('support-document', 'fuera.json', submittedId);
    expect(taken.result.documents.map((d) => d.status)).toEqual(['invalid']);

    const help = await runCli(project, ['resend', '--help'], { config: false });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('edoc-bridge resend --file NAME');
  }, 120_000);
});
