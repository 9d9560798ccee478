/**
 * Reliability suite 3, the service side: the service down for a while (the
 * emulator stopped, its state kept, restarted on the same port) and a wrong
 * key fixed by SIGHUP. In both the documents wait rather than fail, and the
 * catch-up never goes above the company's rate at the service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  COMPANY_MAIN,
  DaemonProcess,
  eventually,
  sleep,
  startTestEmulator,
  type LogLine,
} from '../../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../../helpers/documents.js';
import {
  createMappedProject,
  findSecrets,
  RestartableEmulator,
  salesCsv,
} from '../../helpers/torture-project.js';
import type { FaultReport } from './faults.js';

const numbers = (first: number, n: number): number[] =>
  Array.from({ length: n }, (_, k) => first + k);

export interface ServiceDownOptions {
  documents: number;
  requestsPerSecond: number;
  downMs: number;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  finishTimeoutMs: number;
}

export async function runServiceDownScenario(o: ServiceDownOptions): Promise<FaultReport> {
  const started = Date.now();
  const problems: string[] = [];
  const emuDir = await mkdtemp(path.join(os.tmpdir(), 'edoc-torture-emulator-'));
  const emulator = await RestartableEmulator.start([COMPANY_MAIN], emuDir, { latencyMs: 10 });
  const project = await createMappedProject({
    baseUrl: emulator.url,
    companies: [
      { ...COMPANY_MAIN, rate: { requestsPerSecond: o.requestsPerSecond, concurrency: 4 } },
    ],
    retry: o.retry,
  });
  let daemon: DaemonProcess | undefined;
  try {
    daemon = await DaemonProcess.start(project);
    const half = Math.floor(o.documents / 2);
    const jsonl = numbers(990_000_001, half);
    const csv = numbers(990_100_001, o.documents - half);
    await project.drop(
      'invoice',
      'antes-de-la-caida.jsonl',
      jsonlText(jsonl.map((n) => invoice(n))),
    );
    await project.drop('invoice', 'durante-la-caida.csv', salesCsv(csv));
    await eventually(
      () => ((project.ledgerStates().accepted ?? 0) >= o.requestsPerSecond ? true : undefined),
      'some documents accepted',
    );
    const beforeDown = await emulator.client.stats();

    await emulator.stop();
    const downAt = Date.now();
    const acceptedAtDown = project.ledgerStates().accepted ?? 0;
    let failedWhileDown = 0;
    while (Date.now() - downAt < o.downMs) {
      await sleep(250);
      const s = project.ledgerStates();
      failedWhileDown = Math.max(failedWhileDown, (s.failed ?? 0) + (s['in-doubt'] ?? 0));
    }
    const attemptsWhileDown = maxAttemptsOf(project.stateDir);
    await emulator.restart();
    const upAt = Date.now();

    const r1 = await project.finalResult('invoice', 'antes-de-la-caida.jsonl', {
      timeoutMs: o.finishTimeoutMs,
    });
    const r2 = await project.finalResult('invoice', 'durante-la-caida.csv', {
      timeoutMs: o.finishTimeoutMs,
    });
    const caughtUpMs = Date.now() - upAt;
    const after = await emulator.client.stats();
    const busiestAfter = after.busiestSecond[String(COMPANY_MAIN.id)] ?? 0;
    const busiestBefore = beforeDown.busiestSecond[String(COMPANY_MAIN.id)] ?? 0;
    const accepted = r1.counts.accepted + r2.counts.accepted;
    if (failedWhileDown > 0)
      problems.push(`${failedWhileDown} documents failed or in doubt while the service was down`);
    if (accepted !== o.documents)
      problems.push(
        `accepted ${accepted} of ${o.documents}: ${JSON.stringify([r1.counts, r2.counts])}`,
      );
    if (busiestAfter > o.requestsPerSecond)
      problems.push(
        `catch-up burst: ${busiestAfter} requests in one second (rate ${o.requestsPerSecond})`,
      );
    if (busiestBefore > o.requestsPerSecond)
      problems.push(`before the outage: ${busiestBefore} requests in one second`);
    // Backoff, not a tight loop: far fewer attempts per document than the outage allows at the base delay.
    if (
      attemptsWhileDown >
      Math.max(
        o.retry.maxAttempts,
        2 +
          (o.downMs / o.retry.maxDelayMs) * 3 +
          Math.log2(o.retry.maxDelayMs / o.retry.baseDelayMs),
      )
    ) {
      problems.push(`${attemptsWhileDown} attempts for one document during the outage`);
    }
    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    const distinct = new Set(issued.map((d) => d.number)).size;
    if (issued.length !== o.documents || distinct !== o.documents) {
      const seen = new Set(issued.map((d) => Number(d.number)));
      problems.push(
        `issued ${issued.length} (${distinct} distinct) of ${o.documents}; missing ${[...jsonl, ...csv].filter((n) => !seen.has(n)).join(' ')}`,
      );
    }
    const exit = await daemon.stop();
    if (exit.code !== 0) problems.push(`SIGTERM exit ${JSON.stringify(exit)}`);
    const secretsFound = findSecrets(project.dir, [COMPANY_MAIN.apiKey]).hits.length;
    if (secretsFound > 0) problems.push('a key is written under the project');
    return {
      scenario: 'service down',
      documents: o.documents,
      accepted,
      issued: issued.length,
      duplicated: issued.length - distinct,
      reportsWritten: 2,
      secretsFound,
      problems,
      details: {
        downMs: o.downMs,
        acceptedBeforeDown: acceptedAtDown,
        maxAttemptsPerDocument: attemptsWhileDown,
        caughtUpMs,
        busiestSecondBefore: busiestBefore,
        busiestSecondCatchUp: busiestAfter,
        rate: o.requestsPerSecond,
        requestsAfter: after.requests.E1,
      },
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await daemon?.stop();
    await emulator.close();
    // EDOC_TORTURE_KEEP=1 leaves the folders to look at.
    if (process.env.EDOC_TORTURE_KEEP === undefined) {
      await project.remove();
      await rm(emuDir, { recursive: true, force: true });
    } else problems.push(`kept ${project.dir} ${emuDir}`);
  }
}

function maxAttemptsOf(stateDir: string): number {
  const db = new Database(path.join(stateDir, 'ledger.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return (
      (db.prepare('SELECT max(attempts) AS n FROM documents').get() as { n: number | null }).n ?? 0
    );
  } finally {
    db.close();
  }
}

// --- a wrong key, then the right one ---------------------------------------------------------

const WRONG_KEY = 'wrong-key-9f8e7d6c5b4a';

export async function runWrongKeyScenario(o: {
  documents: number;
  requestsPerSecond: number;
}): Promise<FaultReport> {
  const started = Date.now();
  const problems: string[] = [];
  const emulator = await startTestEmulator([COMPANY_MAIN], { latencyMs: 5 });
  const project = await createMappedProject({
    baseUrl: emulator.url,
    companies: [
      { ...COMPANY_MAIN, rate: { requestsPerSecond: o.requestsPerSecond, concurrency: 4 } },
    ],
    apiKeys: { main: WRONG_KEY },
  });
  let daemon: DaemonProcess | undefined;
  try {
    daemon = await DaemonProcess.start(project);
    const docs = numbers(990_000_001, o.documents);
    await project.drop('invoice', 'llave-mala.jsonl', jsonlText(docs.map((n) => invoice(n))));
    const isAlert = (l: LogLine): boolean => l.code === 'EDOC_SERVICE_UNAUTHORIZED';
    await daemon.waitForLog(isAlert);
    await sleep(1_500);
    const waiting = project.ledgerStates();
    if (waiting.pending !== o.documents)
      problems.push(`while paused: ${JSON.stringify(waiting)} (all should be pending)`);
    const requestsWhilePaused = (await emulator.client.stats()).totalRequests;
    // Everything resumes at once: the rate must still hold at the service.
    await emulator.client.resetStats();
    await project.writeConfig({ ...project.options, apiKeys: {} });
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    const result = await project.finalResult('invoice', 'llave-mala.jsonl', { timeoutMs: 60_000 });
    const stats = await emulator.client.stats();
    const busiest = stats.busiestSecond[String(COMPANY_MAIN.id)] ?? 0;
    if (result.counts.accepted !== o.documents)
      problems.push(`after the key was fixed: ${JSON.stringify(result.counts)}`);
    if (busiest > o.requestsPerSecond)
      problems.push(
        `resume burst: ${busiest} requests in one second (rate ${o.requestsPerSecond})`,
      );
    const alerts = daemon.logLines().filter(isAlert).length;
    if (alerts !== 1) problems.push(`${alerts} unauthorized alert lines (expected one)`);
    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    const distinct = new Set(issued.map((d) => d.number)).size;
    if (issued.length !== o.documents || distinct !== o.documents)
      problems.push(`issued ${issued.length} (${distinct} distinct)`);
    const exit = await daemon.stop();
    if (exit.code !== 0) problems.push(`SIGTERM exit ${JSON.stringify(exit)}`);
    const { hits } = findSecrets(project.dir, [COMPANY_MAIN.apiKey, WRONG_KEY]);
    for (const h of hits)
      problems.push(
        `${h.secret === WRONG_KEY ? 'the wrong' : 'the right'} key is written in ${h.file}`,
      );
    return {
      scenario: '401 then a fixed key',
      documents: o.documents,
      accepted: result.counts.accepted,
      issued: issued.length,
      duplicated: issued.length - distinct,
      reportsWritten: 1,
      secretsFound: hits.length,
      problems,
      details: {
        requestsWhilePaused,
        busiestSecondOnResume: busiest,
        rate: o.requestsPerSecond,
        alerts,
      },
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await daemon?.stop();
    await emulator.close();
    await project.remove();
  }
}
