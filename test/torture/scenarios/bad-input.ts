/**
 * Reliability suite 2, "Bad input": the broken corpus (test/torture/corpus.ts)
 * dropped among good files into one running daemon, plus what only the file
 * system can make: a symbolic link, a directory, a FIFO, a file deleted before
 * it settles, one deleted while read and one growing while read. Every broken
 * file gets a clear report, every good document is accepted, and the daemon
 * never restarts. Problems are collected (not thrown) so one run shows them all.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { appendFile, mkdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  COMPANY_MAIN,
  DaemonProcess,
  sleep,
  startTestEmulator,
  type LogLine,
  type ResultJson,
  type TestEmulator,
} from '../../helpers/daemon-harness.js';
import { invoice, jsonlText, jsonText } from '../../helpers/documents.js';
import {
  createMappedProject,
  findSecrets,
  reportsByFile,
  type FoundReport,
  type MappedProject,
} from '../../helpers/torture-project.js';
import {
  brokenCorpus,
  goodFiles,
  INVALID_FIRST,
  invalidInvoice,
  lateCases,
  type CorpusFile,
  type CorpusOptions,
} from '../corpus.js';

export interface BadInputOptions extends CorpusOptions {
  /** Documents of the file deleted while it is read (invalid ones: read, never sent). */
  deletedDocuments: number;
  timeoutMs: number;
}

export interface BadInputReport {
  badFiles: number;
  specialFiles: number;
  goodFiles: number;
  goodDocuments: number;
  reportsWritten: number;
  fileErrors: number;
  invalidReports: number;
  acceptedGood: number;
  issuedInvalid: number;
  duplicated: number;
  daemonPid: number | undefined;
  restarts: number;
  crashLines: number;
  secretsFound: number;
  problems: string[];
  seconds: number;
}

const GROWING_FIRST = 994_000_001;
const LAST_FIRST = 994_500_001;

function isCrashLine(l: LogLine): boolean {
  return (
    l.level === 60 ||
    l.level === 'fatal' ||
    l.msg === 'intake failed' ||
    /uncaught|unhandled/i.test(l.msg)
  );
}

function checkBroken(
  f: CorpusFile,
  found: FoundReport | undefined,
  errorsCsv: string | undefined,
  problems: string[],
): 'file-error' | 'invalid' | undefined {
  const say = (what: string): void => {
    problems.push(`${JSON.stringify(f.name)} (${f.why}): ${what}`);
  };
  if (!found) {
    say('no result.json');
    return undefined;
  }
  const r: ResultJson = found.result;
  if (r.finishedAt === null) say('result.json not final');
  if (errorsCsv === undefined) say('no errors.csv');
  else if (errorsCsv.trim().split('\n').length < 2) say('errors.csv without a problem row');
  else if (f.field !== undefined && !errorsCsv.includes(f.field))
    say(`errors.csv does not name ${f.field}: ${errorsCsv.slice(0, 300)}`);
  const fileError = r.error !== undefined && r.error !== null;
  if (fileError) {
    if (!/^EDOC_/.test(r.error?.code ?? '') || (r.error?.message ?? '').length < 10)
      say(`unclear file error ${JSON.stringify(r.error)}`);
    if (f.expect === 'invalid')
      say(`expected invalid documents, got file error ${JSON.stringify(r.error)}`);
    const sent = r.documents.filter((d) => d.status === 'accepted').length;
    if (sent > 0 && (f.goodNumbers?.length ?? 0) === 0)
      say(`${sent} documents accepted from a broken file`);
    return 'file-error';
  }
  if (f.expect === 'file-error')
    say(`expected a file-level error, got counts ${JSON.stringify(r.counts)}`);
  const bad = r.documents.filter((d) => d.status !== 'accepted');
  if (bad.length === 0) say(`nothing reported wrong: ${JSON.stringify(r.counts)}`);
  for (const d of bad)
    if (d.errors.length === 0 || d.errors.some((e) => e.message.length < 5))
      say(`document ${d.index} ${d.status} without a clear error`);
  const accepted = r.documents.filter((d) => d.status === 'accepted').map((d) => d.key);
  const expectedGood = (f.goodNumbers ?? []).map((n) => `main/invoice/SETP/${n}`);
  if (JSON.stringify(accepted) !== JSON.stringify(expectedGood))
    say(`accepted ${JSON.stringify(accepted)}, expected ${JSON.stringify(expectedGood)}`);
  return 'invalid';
}

export async function runBadInputScenario(o: BadInputOptions): Promise<BadInputReport> {
  const started = Date.now();
  const problems: string[] = [];
  let emulator: TestEmulator | undefined;
  let project: MappedProject | undefined;
  let daemon: DaemonProcess | undefined;
  try {
    emulator = await startTestEmulator([COMPANY_MAIN]);
    project = await createMappedProject({
      baseUrl: emulator.url,
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 100, concurrency: 4 } }],
    });
    daemon = await DaemonProcess.start(project);
    const pid = daemon.child.pid;
    const broken = brokenCorpus(o);
    const good = goodFiles();
    const inbox = project.inbox('invoice');
    await mkdir(inbox, { recursive: true });

    // Broken and good files interleaved, the way a busy ERP folder looks.
    const goodLeft = [...good];
    for (const [i, f] of broken.entries()) {
      await project.drop(f.kind, f.name, f.content);
      const g = i % 6 === 0 ? goodLeft.shift() : undefined;
      if (g) await project.drop(g.kind, g.name, g.content);
    }
    for (const g of goodLeft) await project.drop(g.kind, g.name, g.content);

    // What only the file system can make.
    const outside = path.join(project.dir, 'elsewhere');
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, 'target.json'), jsonText(invoice(INVALID_FIRST + 950)));
    await symlink(path.join(outside, 'target.json'), path.join(inbox, 'enlace.json'));
    await mkdir(path.join(inbox, 'carpeta.json'));
    await writeFile(
      path.join(inbox, 'carpeta.json', 'dentro.json'),
      jsonText(invoice(INVALID_FIRST + 951)),
    );
    const fifo = spawnSync('mkfifo', [path.join(inbox, 'tuberia.jsonl')]);
    if (fifo.status !== 0) problems.push(`mkfifo failed: ${fifo.stderr.toString()}`);
    await writeFile(path.join(inbox, 'se-va.json'), jsonText(invoice(INVALID_FIRST + 952)));
    await sleep(30);
    await unlink(path.join(inbox, 'se-va.json'));

    // Deleted while read: big enough that reading takes a while; invalid documents, so nothing is sent.
    const deletedName = 'borrado-al-leer.jsonl';
    const logAt = project.logLines().length;
    await project.drop(
      'invoice',
      deletedName,
      jsonlText(Array.from({ length: o.deletedDocuments }, (_, k) => invalidInvoice(1000 + k))),
    );
    await project.waitForLog((l) => l.file === deletedName && l.msg === 'file taken', {
      since: logAt,
      timeoutMs: o.timeoutMs,
    });
    await unlink(path.join(inbox, deletedName)).catch(() => undefined);

    // Growing while read: written in place, taken once it settles, then more lines are appended.
    const growingName = 'creciendo.jsonl';
    const growing = Array.from({ length: 6 }, (_, k) => invoice(GROWING_FIRST + k));
    await writeFile(path.join(inbox, growingName), jsonlText(growing.slice(0, 3)));
    await project.waitForLog((l) => l.file === growingName && l.msg === 'file taken', {
      since: logAt,
      timeoutMs: o.timeoutMs,
    });
    for (const d of growing.slice(3)) {
      await appendFile(path.join(inbox, growingName), `${JSON.stringify(d)}\n`);
      await sleep(20);
    }

    // Every report final.
    const outboxInvoice = project.outbox('invoice');
    const expectNames = [
      ...broken.filter((f) => f.kind === 'invoice').map((f) => f.name),
      ...good.map((g) => g.name),
      deletedName,
      growingName,
    ];
    const deadline = Date.now() + o.timeoutMs;
    let reports = await reportsByFile(outboxInvoice);
    while (Date.now() < deadline && !expectNames.every((n) => reports.get(n)?.result.finishedAt)) {
      await sleep(250);
      reports = await reportsByFile(outboxInvoice);
    }
    const payrollReports = await reportsByFile(project.outbox('payroll'));
    const lastLogAt = project.logLines().length;

    // Dropped once the rest settled so they cannot disturb it (were `{}` sent, it would take the service's next number).
    const gaps = lateCases();
    for (const f of gaps.emptyObject.files) await project.drop(f.kind, f.name, f.content);
    const gapReport = async (name: string): Promise<ResultJson | undefined> => {
      const until = Date.now() + 10_000;
      for (;;) {
        const r = (await reportsByFile(outboxInvoice)).get(name)?.result;
        if (r?.finishedAt || Date.now() > until) return r;
        await sleep(200);
      }
    };
    const empty = await gapReport('objeto-vacio.json');
    if (empty?.counts.invalid !== 1)
      problems.push(`${gaps.emptyObject.expected}: got ${JSON.stringify(empty?.counts)}`);
    // One after the other, as an ERP exporting NAME.json today and NAME.csv tomorrow would.
    const [firstStem, secondStem] = gaps.sameStem.files;
    await project.drop(firstStem.kind, firstStem.name, firstStem.content);
    await gapReport(firstStem.name);
    await project.drop(secondStem.kind, secondStem.name, secondStem.content);
    await gapReport(secondStem.name);
    const afterBoth = await reportsByFile(outboxInvoice);
    const stems = gaps.sameStem.files.map((f) => afterBoth.get(f.name));
    if (stems.some((r) => r === undefined))
      problems.push(`${gaps.sameStem.expected}: only ${stems.filter((r) => r).length} of 2`);

    // Still alive and working: one more good file after all that.
    const last = Array.from({ length: 3 }, (_, k) => invoice(LAST_FIRST + k));
    await project.drop('invoice', 'despues.jsonl', jsonlText(last));
    const lastResult = await project.finalResult('invoice', 'despues.jsonl', {
      timeoutMs: o.timeoutMs,
    });
    if (lastResult.counts.accepted !== 3)
      problems.push(`the file after the corpus: ${JSON.stringify(lastResult.counts)}`);

    let fileErrors = 0;
    let invalidReports = 0;
    for (const f of broken) {
      const found = f.kind === 'invoice' ? reports.get(f.name) : payrollReports.get(f.name);
      const errorsCsv = found
        ? await readFile(found.errorsPath, 'utf8').catch(() => undefined)
        : undefined;
      const got = checkBroken(f, found, errorsCsv, problems);
      if (got === 'file-error') fileErrors++;
      if (got === 'invalid') invalidReports++;
      if (existsSync(path.join(project.inbox(f.kind), f.name)))
        problems.push(`${JSON.stringify(f.name)} left in the inbox (not archived)`);
    }
    let acceptedGood = 0;
    for (const g of good) {
      const r = reports.get(g.name)?.result;
      const keys = r?.documents.filter((d) => d.status === 'accepted').map((d) => d.key) ?? [];
      if (JSON.stringify(keys) === JSON.stringify(g.numbers.map((n) => `main/invoice/SETP/${n}`)))
        acceptedGood += keys.length;
      else
        problems.push(
          `good ${g.name}: ${JSON.stringify(r?.counts ?? 'no report')} ${JSON.stringify(r?.error ?? r?.documents.find((d) => d.status !== 'accepted')?.errors ?? '')}`,
        );
    }
    const deleted = reports.get(deletedName)?.result;
    if (!deleted?.finishedAt) problems.push(`${deletedName}: no final report`);
    else if (deleted.counts.accepted > 0)
      problems.push(`${deletedName}: invalid documents accepted`);
    if (!reports.get(growingName)?.result.finishedAt)
      problems.push(`${growingName}: no final report`);

    // The specials are left alone, with one warning line each, and no report.
    const lines = project.logLines();
    for (const special of ['enlace.json', 'carpeta.json', 'tuberia.jsonl']) {
      const full = path.join(inbox, special);
      if (!existsSync(full) && !lstatSync(full, { throwIfNoEntry: false }))
        problems.push(`${special} was moved or deleted`);
      const warnings = lines.filter(
        (l) => (l.level === 40 || l.level === 'warn') && JSON.stringify(l).includes(special),
      );
      if (warnings.length !== 1)
        problems.push(`${special}: ${warnings.length} warning lines (expected 1)`);
      if (reports.has(special)) problems.push(`${special}: got a report`);
    }
    if (reports.has('dentro.json'))
      problems.push('a file inside a directory in the inbox was processed');

    // What reached the authority: each good number once, nothing invalid.
    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    const times = new Map<number, number>();
    for (const d of issued) times.set(Number(d.number), (times.get(Number(d.number)) ?? 0) + 1);
    const duplicated = [...times.values()].filter((n) => n > 1).length;
    const issuedInvalid = [...times.keys()].filter(
      (n) => n >= INVALID_FIRST && n < GROWING_FIRST,
    ).length;
    if (duplicated > 0) problems.push(`${duplicated} numbers issued twice`);
    if (issuedInvalid > 0) problems.push(`${issuedInvalid} invalid documents reached the service`);

    const crashLines = lines.filter(isCrashLine);
    for (const l of crashLines.slice(0, 5))
      problems.push(`crash line: ${JSON.stringify(l).slice(0, 400)}`);
    const restarts = daemon.running && daemon.child.pid === pid ? 0 : 1;
    if (restarts > 0) problems.push(`the daemon is not running any more: ${daemon.stderr}`);
    if (daemon.stderr.trim() !== '') problems.push(`stderr: ${daemon.stderr.slice(0, 400)}`);
    if (lines.slice(lastLogAt).some(isCrashLine)) problems.push('crash lines after the corpus');

    const exit = await daemon.stop();
    if (exit.code !== 0) problems.push(`SIGTERM exit ${JSON.stringify(exit)}`);
    const secrets = findSecrets(project.dir, [COMPANY_MAIN.apiKey]);
    for (const h of secrets.hits) problems.push(`secret in ${h.file}`);
    return {
      badFiles: broken.length + 6,
      specialFiles: 6,
      goodFiles: good.length,
      goodDocuments: good.reduce((a, g) => a + g.numbers.length, 0),
      reportsWritten: reports.size + payrollReports.size,
      fileErrors,
      invalidReports,
      acceptedGood,
      issuedInvalid,
      duplicated,
      daemonPid: pid,
      restarts,
      crashLines: crashLines.length,
      secretsFound: secrets.hits.length,
      problems,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await daemon?.stop();
    await emulator?.close();
    // EDOC_TORTURE_KEEP=1 leaves the project folder to look at.
    if (process.env.EDOC_TORTURE_KEEP === undefined) await project?.remove();
    else problems.push(`kept ${project?.dir}`);
  }
}
