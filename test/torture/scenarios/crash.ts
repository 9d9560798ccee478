/**
 * Reliability suite 1, "Crash": numbered invoices over JSONL and CSV files, the
 * emulator answering 500s, 502s, resets and accepted-then-dropped answers
 * (seeded), the daemon killed with SIGKILL at seeded random moments and
 * restarted; then the faults stop and it finishes. A document whose answer was
 * lost (or cut off by a kill) meets a repeated-number answer when resent: it is
 * in doubt for its repeated number (issue 12 item 1), and the scenario checks
 * the emulator holds each of those once, with our content. Shared by the long run
 * (test/torture) and the short one inside `npm test` (test/reliability).
 */
import { isDeepStrictEqual } from 'node:util';
import { mulberry32 } from '../../../src/emulator/faults.js';
import {
  COMPANY_MAIN,
  DaemonProcess,
  sleep,
  startTestEmulator,
  type ResultJson,
  type TestEmulator,
} from '../../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../../helpers/documents.js';
import {
  createMappedProject,
  findSecrets,
  salesCsv,
  type MappedProject,
} from '../../helpers/torture-project.js';

export interface CrashOptions {
  documents: number;
  files: number;
  kills: number;
  /** Seeds the kill moments and the emulator's fault draws. */
  seed: number;
  /** The company's rate: low enough that the kills land while documents are in flight. */
  requestsPerSecond: number;
  /** Each kill comes after min + uniform [0, spread) ms of a run. */
  killAfterMs: { min: number; spread: number };
  finishTimeoutMs: number;
}

export interface CrashReport {
  documents: number;
  files: number;
  crashes: number;
  /** Kills that caught documents `sending` (the next start logged them resent or in doubt). */
  crashesMidSend: number;
  lost: number;
  duplicated: number;
  extra: number;
  reportsWritten: number;
  reportsComplete: number;
  /** Documents neither accepted nor in doubt for a repeated number (a clash, failed, rejected…): 0. */
  notAccepted: number;
  /** In doubt for a repeated number: the answer of our first attempt was lost (or cut off by a kill). */
  inDoubt: number;
  /** Of those, how many the emulator does NOT hold exactly once with the request we sent: 0. */
  inDoubtNotOurs: number;
  ledgerStates: Record<string, number>;
  emulatorRequests: number;
  faultsInjected: Record<string, number>;
  secretsFound: number;
  filesSearched: number;
  seconds: number;
}

export const FIRST_NUMBER = 990_000_001;

export function crashFileName(i: number): string {
  return i % 2 === 0
    ? `lote ${String(i).padStart(2, '0')}.jsonl`
    : `lote-${String(i).padStart(2, '0')}.csv`;
}

function numbersOf(i: number, perFile: readonly number[]): number[] {
  const start = perFile.slice(0, i).reduce((a, b) => a + b, 0);
  return Array.from({ length: perFile[i] }, (_, k) => FIRST_NUMBER + start + k);
}

function fileContent(i: number, numbers: readonly number[]): string {
  // CSV documents of two lines every third file, so grouping rows into documents is crashed too.
  if (i % 2 === 1) return salesCsv(numbers, i % 3 === 0 ? 2 : 1);
  return jsonlText(numbers.map((n) => invoice(n)));
}

export async function runCrashScenario(
  o: CrashOptions,
  log: (line: string) => void = () => {},
): Promise<CrashReport> {
  const started = Date.now();
  const faults = {
    errorRate: 0.06,
    badGatewayRate: 0.06,
    resetRate: 0.06,
    dropAfterCommitRate: 0.06,
    latencyMs: 3,
    randomSeed: o.seed,
  };
  let emulator: TestEmulator | undefined;
  let project: MappedProject | undefined;
  let daemon: DaemonProcess | undefined;
  try {
    emulator = await startTestEmulator([COMPANY_MAIN], faults);
    project = await createMappedProject({
      baseUrl: emulator.url,
      companies: [
        { ...COMPANY_MAIN, rate: { requestsPerSecond: o.requestsPerSecond, concurrency: 4 } },
      ],
      retry: { maxAttempts: 100, baseDelayMs: 20, maxDelayMs: 300 },
    });
    const perFile = Array.from(
      { length: o.files },
      (_, i) => Math.floor(o.documents / o.files) + (i < o.documents % o.files ? 1 : 0),
    );
    const files = perFile.map((_, i) => ({
      name: crashFileName(i),
      numbers: numbersOf(i, perFile),
    }));

    // A third are there before the first start; the rest arrive during the first runs.
    const before = Math.ceil(o.files / 3);
    for (const f of files.slice(0, before))
      await project.drop('invoice', f.name, fileContent(files.indexOf(f), f.numbers));
    const later = files.slice(before);
    const random = mulberry32(o.seed);
    const laterPerRun = Math.max(1, Math.ceil(later.length / Math.max(1, Math.min(o.kills, 5))));
    let recoveries = 0;
    for (let run = 0; run < o.kills; run++) {
      daemon = await DaemonProcess.start(project, 30_000);
      const recovered = daemon.logLines().find((l) => typeof l.resent === 'number');
      if (recovered) recoveries++;
      for (const f of later.splice(0, laterPerRun))
        await project.drop('invoice', f.name, fileContent(files.indexOf(f), f.numbers));
      await sleep(o.killAfterMs.min + Math.floor(random() * o.killAfterMs.spread));
      await daemon.kill();
      if (run % 10 === 9)
        log(`crash ${run + 1}/${o.kills}: ${JSON.stringify(project.ledgerStates())}`);
    }
    for (const f of later.splice(0))
      await project.drop('invoice', f.name, fileContent(files.indexOf(f), f.numbers));
    await emulator.client.setFaults({});
    daemon = await DaemonProcess.start(project, 30_000);
    if (daemon.logLines().some((l) => typeof l.resent === 'number')) recoveries++;
    const results: ResultJson[] = [];
    for (const f of files)
      results.push(await project.finalResult('invoice', f.name, { timeoutMs: o.finishTimeoutMs }));
    const exit = await daemon.stop();
    if (exit.code !== 0)
      throw new Error(
        `the last run did not stop cleanly: ${JSON.stringify(exit)} ${daemon.stderr}`,
      );

    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    const times = new Map<number, number>();
    for (const d of issued) times.set(Number(d.number), (times.get(Number(d.number)) ?? 0) + 1);
    const expected = files.flatMap((f) => f.numbers);
    const expectedSet = new Set(expected);
    let reportsComplete = 0;
    let notAccepted = 0;
    for (const [i, r] of results.entries()) {
      const docs = files[i].numbers.length;
      const settled = (d: ResultJson['documents'][number]): boolean =>
        d.status === 'accepted' ||
        (d.status === 'in-doubt' && (d as { doubt?: string }).doubt === 'repeated-number');
      const complete =
        r.finishedAt !== null &&
        r.counts.total === docs &&
        r.counts.accepted + r.counts.inDoubt === docs &&
        r.documents.length === docs &&
        r.documents.every(
          (d, k) =>
            d.index === k && settled(d) && d.key === `main/invoice/SETP/${files[i].numbers[k]}`,
        );
      if (complete) reportsComplete++;
      notAccepted += r.documents.filter((d) => !settled(d)).length;
    }
    // Every in-doubt document: the emulator holds its number exactly once, with the request we sent.
    const held = new Map<number, unknown[]>();
    for (const d of await emulator.client.documents({
      company: COMPANY_MAIN.id,
      kind: 'invoice',
      withRequest: true,
    })) {
      if (d.accepted)
        held.set(Number(d.number), [...(held.get(Number(d.number)) ?? []), d.request]);
    }
    const doubts = project.ledgerQuery<{ key: string; request: string }>(`SELECT d.key AS key,
      CASE WHEN b.request_is_raw <> 0 THEN b.raw ELSE b.request END AS request
      FROM documents d JOIN document_bodies b ON b.id = d.id WHERE d.state = 'in-doubt'`);
    const inDoubtNotOurs = doubts.filter((d) => {
      const there = held.get(Number(d.key.split('/').at(-1))) ?? [];
      return there.length !== 1 || !isDeepStrictEqual(there[0], JSON.parse(d.request));
    }).length;
    const stats = await emulator.client.stats();
    const secrets = findSecrets(project.dir, [COMPANY_MAIN.apiKey]);
    return {
      documents: expected.length,
      files: files.length,
      crashes: o.kills,
      crashesMidSend: recoveries,
      lost: expected.filter((n) => !times.has(n)).length,
      duplicated: [...times.values()].filter((n) => n > 1).length,
      extra: [...times.keys()].filter((n) => !expectedSet.has(n)).length,
      reportsWritten: results.length,
      reportsComplete,
      notAccepted,
      inDoubt: doubts.length,
      inDoubtNotOurs,
      ledgerStates: project.ledgerStates(),
      emulatorRequests: stats.totalRequests,
      faultsInjected: stats.faultsInjected,
      secretsFound: secrets.hits.length,
      filesSearched: secrets.filesSearched,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await daemon?.stop();
    await emulator?.close();
    await project?.remove();
  }
}
