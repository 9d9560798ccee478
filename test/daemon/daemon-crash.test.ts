/**
 * Issue 4's crash test: the emulator answers 500s and 502s, resets connections
 * and drops answers after it committed the document; the daemon is killed with
 * SIGKILL at random (seeded) moments and restarted. In the end every numbered
 * document was issued exactly once, every input file has a complete
 * result.json, and nothing is left `sending` in the ledger. A document whose
 * answer was lost (or whose request a kill cut off) meets a repeated-number
 * answer (Regla 90) when resent: it is reported `in-doubt` (repeated-number),
 * never `accepted` on that answer alone and never a clash (issue 12 item 1);
 * the test checks the emulator holds each of those once, with our content.
 */
import { beforeAll, describe, expect } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  eventually,
  type ResultJson,
  sleep,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import {
  invoice,
  jsonlText,
  jsonText,
  payroll,
  pos,
  supportDocument,
  supportMarker,
} from '../helpers/documents.js';

const FIRST = 990_000_001;
const FILES = 4;
const PER_FILE = 50;
/** Numbered documents of the other endpoints (E2, E3, E5) in the same storm. */
const OTHERS = 15;
const OTHER_FILES: [kind: string, name: string, family: string, first: number][] = [
  ['payroll', 'crash-payroll.jsonl', 'payroll', 2001],
  ['pos', 'crash-pos.json', 'pos', 5001],
  ['support-document', 'crash-support.jsonl', 'support-document', 990_000_001],
];

function otherContent(kind: string, first: number): string {
  const numbers = Array.from({ length: OTHERS }, (_, k) => first + k);
  if (kind === 'payroll') return jsonlText(numbers.map((n) => payroll(n)));
  if (kind === 'pos') return jsonText(numbers.map((n) => pos(n)));
  return jsonlText(numbers.map((n) => supportDocument(n)));
}

beforeAll(async () => {
  await buildCli();
}, 240_000);

function fileName(i: number): string {
  return i % 2 === 0 ? `batch-${i}.json` : `batch-${i}.jsonl`;
}

function fileContent(i: number): string {
  const docs = Array.from({ length: PER_FILE }, (_, j) => invoice(FIRST + i * PER_FILE + j));
  return i % 2 === 0 ? jsonText(docs) : jsonlText(docs);
}

function countsAddUp(r: ResultJson): boolean {
  const c = r.counts;
  return c.accepted + c.rejected + c.invalid + c.failed + c.duplicate + c.inDoubt === c.total;
}

describe('crashes and faults', () => {
  test('killed with SIGKILL 6 times under 500s, 502s, resets and lost answers: every numbered document issued exactly once, reported accepted or in doubt for its repeated number', async ({
    annotate,
    daemonProject,
  }) => {
    const faults = {
      errorRate: 0.1,
      badGatewayRate: 0.1,
      resetRate: 0.1,
      dropAfterCommitRate: 0.1,
      latencyMs: 5,
      randomSeed: 4242,
    };
    const { emulator, project, startDaemon } = await daemonProject({
      faults,
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 60, concurrency: 4 } }],
      retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
    });
    // Two files are there before the first start (the start-up scan), two arrive while it runs.
    await project.drop('invoice', fileName(0), fileContent(0));
    await project.drop('invoice', fileName(1), fileContent(1));

    const random = mulberry32(20261122);
    const kills: { afterMs: number; requestsSoFar: number }[] = [];
    let daemon: DaemonProcess;
    for (let run = 0; run < 6; run++) {
      daemon = await startDaemon();
      if (run === 0) {
        await project.drop('invoice', fileName(2), fileContent(2));
        await project.drop('invoice', fileName(3), fileContent(3));
      }
      if (run === 1) {
        for (const [kind, name, , first] of OTHER_FILES)
          await project.drop(kind, name, otherContent(kind, first));
      }
      const afterMs = 100 + Math.floor(random() * 1300);
      await sleep(afterMs);
      await daemon.kill();
      kills.push({ afterMs, requestsSoFar: (await emulator.client.stats()).totalRequests });
    }
    await emulator.client.setFaults({});
    daemon = await startDaemon();
    const results: ResultJson[] = [];
    for (let i = 0; i < FILES; i++)
      results.push(await project.finalResult('invoice', fileName(i), { timeoutMs: 30_000 }));
    const others: ResultJson[] = [];
    for (const [kind, name] of OTHER_FILES)
      others.push(await project.finalResult(kind, name, { timeoutMs: 30_000 }));
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });

    const stats = await emulator.client.stats();
    await annotate(
      `crash test: kills ${JSON.stringify(kills)}; emulator ${stats.totalRequests} requests, faults ${JSON.stringify(stats.faultsInjected)}, ` +
        `requests ${JSON.stringify(stats.requests)}`,
    );
    // The faults really happened (else the test proves nothing).
    expect(stats.faultsInjected['drop-after-commit'] ?? 0).toBeGreaterThan(0);
    expect(stats.faultsInjected.reset ?? 0).toBeGreaterThan(0);
    expect(stats.faultsInjected.error ?? 0).toBeGreaterThan(0);

    // At least one kill caught requests in flight: the restart found them `sending` and resent them.
    const recovered = project
      .logLines()
      .filter((l) => typeof l.resent === 'number' && l.resent > 0);
    expect(recovered.length).toBeGreaterThan(0);

    // Every numbered invoice issued exactly once, nothing else issued.
    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id, kind: 'invoice' });
    const numbers = issued.map((d) => Number(d.number)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: FILES * PER_FILE }, (_, k) => FIRST + k));

    // What the emulator holds per family and number, with the request it was sent.
    const held = new Map<string, unknown[]>();
    for (const d of await emulator.client.documents({ withRequest: true })) {
      if (!d.accepted) continue;
      const k = `${d.family}/${Number(d.number)}`;
      held.set(k, [...(held.get(k) ?? []), d.request]);
    }
    const correlation = (request: unknown): unknown =>
      (request as { CorrelationDocumentId?: unknown }).CorrelationDocumentId;
    let inDoubt = 0;
    for (const [i, r] of results.entries()) {
      expect(r.finishedAt, fileName(i)).not.toBeNull();
      expect(r.counts, fileName(i)).toMatchObject({
        total: PER_FILE,
        rejected: 0,
        invalid: 0,
        failed: 0,
        duplicate: 0,
      });
      expect(r.counts.accepted + r.counts.inDoubt).toBe(PER_FILE);
      expect(countsAddUp(r)).toBe(true);
      expect(r.documents).toHaveLength(PER_FILE);
      expect(r.documents.map((d) => d.index)).toEqual(
        Array.from({ length: PER_FILE }, (_, k) => k),
      );
      expect(r.documents.map((d) => d.key)).toEqual(
        Array.from({ length: PER_FILE }, (_, k) => `main/invoice/SETP/${FIRST + i * PER_FILE + k}`),
      );
      for (const d of r.documents) {
        const n = FIRST + i * PER_FILE + d.index;
        // accepted, or in doubt for its repeated number — and either way held once, with our content
        if (d.status !== 'accepted') {
          expect(d, `SETP${n}`).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
          expect(d.errors.map((e) => e.code)).toEqual(['EDOC_SUBMIT_REPEATED_NUMBER']);
          inDoubt++;
        }
        expect(
          (held.get(`invoice/${n}`) ?? []).map(correlation),
          `SETP${n} held once, ours`,
        ).toEqual([`ERP-SETP-${n}`]);
      }
    }
    for (const [i, [kind, name, family, first]] of OTHER_FILES.entries()) {
      const r = others[i];
      expect(r.counts, name).toMatchObject({ total: OTHERS, failed: 0, duplicate: 0, rejected: 0 });
      expect(r.counts.accepted + r.counts.inDoubt).toBe(OTHERS);
      expect(countsAddUp(r)).toBe(true);
      for (const d of r.documents)
        if (d.status !== 'accepted')
          expect(d, `${name}#${d.index}`).toMatchObject({
            status: 'in-doubt',
            doubt: 'repeated-number',
          });
      inDoubt += r.counts.inDoubt;
      const got = (await emulator.client.issued({ kind: family }))
        .map((d) => Number(d.number))
        .sort((a, b) => a - b);
      expect(got, `${kind} issued once each`).toEqual(
        Array.from({ length: OTHERS }, (_, k) => first + k),
      );
    }
    const total = FILES * PER_FILE + OTHER_FILES.length * OTHERS;
    expect((await emulator.client.issued()).length).toBe(total);
    // every lost answer leaves one document in doubt for its repeated number, never accepted on that answer alone
    expect(inDoubt).toBeGreaterThan(0);
    const states = project.ledgerStates();
    expect(states).toEqual({ accepted: total - inDoubt, 'in-doubt': inDoubt });
    await annotate(
      `crash test: ${total - inDoubt} accepted, ${inDoubt} in doubt (repeated-number), all held once with our content`,
    );
  }, 90_000);

  test('support documents without their own number under faults and SIGKILL: none issued twice, none lost silently', async ({
    annotate,
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: {
        errorRate: 0.1,
        badGatewayRate: 0.1,
        resetRate: 0.1,
        dropAfterCommitRate: 0.1,
        latencyMs: 5,
        randomSeed: 99,
      },
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 40, concurrency: 4 } }],
      retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
    });
    const total = 40;
    const requests = Array.from({ length: total }, (_, k) =>
      supportDocument(undefined, `[doc-${k}]`),
    );
    await project.drop('support-document', 'unnumbered-storm.jsonl', jsonlText(requests));
    const random = mulberry32(777);
    let daemon: DaemonProcess;
    for (let run = 0; run < 4; run++) {
      daemon = await startDaemon();
      await sleep(100 + Math.floor(random() * 900));
      await daemon.kill();
    }
    await emulator.client.setFaults({});
    daemon = await startDaemon();
    const result = await project.finalResult('support-document', 'unnumbered-storm.jsonl', {
      timeoutMs: 30_000,
    });
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });

    const reached = new Map<string, number>();
    for (const d of await emulator.client.documents({
      kind: 'support-document',
      withRequest: true,
    })) {
      const marker = supportMarker(d.request, /\[doc-\d+\]/) ?? '?';
      reached.set(marker, (reached.get(marker) ?? 0) + 1);
    }
    expect(reached.has('?')).toBe(false);
    let inDoubtIssued = 0;
    for (const doc of result.documents) {
      const n = reached.get(`[doc-${doc.index}]`) ?? 0;
      expect(n, `[doc-${doc.index}] reached the authority at most once`).toBeLessThanOrEqual(1);
      if (doc.status === 'accepted') expect(n, `[doc-${doc.index}] accepted means issued`).toBe(1);
      else expect(doc.status, `[doc-${doc.index}]`).toBe('in-doubt');
      if (doc.status === 'in-doubt') inDoubtIssued += n;
    }
    expect(result.documents).toHaveLength(total);
    expect(countsAddUp(result)).toBe(true);
    await annotate(
      `unnumbered storm: ${result.counts.accepted} accepted, ${result.counts.inDoubt} in-doubt ` +
        `(${inDoubtIssued} of them issued at the emulator, the rest never arrived)`,
    );
    const states = project.ledgerStates();
    expect(states.sending ?? 0).toBe(0);
    expect(states.pending ?? 0).toBe(0);
  }, 90_000);

  test('a 3,000-document file killed while it is read: re-read at restart, every document issued once, progress lines on the way', async ({
    annotate,
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 300, concurrency: 8 } }],
    });
    const total = 3_000;
    let daemon = await startDaemon();
    await project.drop(
      'invoice',
      'big.jsonl',
      jsonlText(Array.from({ length: total }, (_, k) => invoice(FIRST + k))),
    );
    await daemon.waitForLog((l) => l.msg === 'file taken');
    // Freeze the daemon (SIGSTOP) as soon as the first batch of the file is in the ledger, look at what it holds,
    // then SIGKILL: the kill lands while the file is read, however fast this machine reads.
    const recorded = (): number =>
      project?.ledgerQuery<{ n: number }>('SELECT count(*) AS n FROM documents')[0]?.n ?? 0;
    const deadline = Date.now() + 15_000;
    while (recorded() === 0 && Date.now() < deadline) await sleep(2);
    daemon.signal('SIGSTOP');
    const fileState = project.ledgerQuery<{ state: string }>('SELECT state FROM files')[0]?.state;
    const recordedAtKill = recorded();
    await daemon.kill();
    const killedWhileReading =
      fileState === 'reading' && recordedAtKill > 0 && recordedAtKill < total;
    const before = project.ledgerStates();
    const sentBefore = (await emulator.client.issued()).length;

    daemon = await startDaemon();
    const result = await project.finalResult('invoice', 'big.jsonl', { timeoutMs: 45_000 });
    // A document whose request the kill cut off after it reached the service meets Regla 90 when resent:
    // in doubt for its repeated number, not accepted on that answer alone (issue 12 item 1).
    const inDoubt = result.documents.filter((d) => d.status !== 'accepted');
    for (const d of inDoubt)
      expect(d, `#${d.index}`).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(result.counts).toMatchObject({
      total,
      accepted: total - inDoubt.length,
      inDoubt: inDoubt.length,
    });
    expect(result.documents.map((d) => d.index)).toEqual(
      Array.from({ length: total }, (_, k) => k),
    );
    const numbers = (await emulator.client.issued())
      .map((d) => Number(d.number))
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: total }, (_, k) => FIRST + k));
    const progress = daemon.logLines().filter((l) => l.msg === 'progress');
    await annotate(
      `big file: killed while reading ${killedWhileReading} (${recordedAtKill} of ${total} recorded, file ${fileState}), ledger then ${JSON.stringify(before)}, ` +
        `${sentBefore} issued before the kill; ${progress.length} progress lines: ${JSON.stringify(progress.map((l) => l.done))}`,
    );
    expect(killedWhileReading).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({
      file: 'big.jsonl',
      kind: 'invoice',
      company: 'main',
      total,
      rejected: 0,
      invalid: 0,
      failed: 0,
      done: expect.any(Number),
      ratePerSecond: expect.any(Number),
    });
    expect(progress[0].done).toBeLessThan(total);
    // the time left: a number once documents went out since the baseline, null while none did
    for (const line of progress)
      expect(
        line.etaSeconds === null || (typeof line.etaSeconds === 'number' && line.etaSeconds >= 0),
      ).toBe(true);
    expect(progress.some((l) => typeof l.etaSeconds === 'number')).toBe(true);
    expect(project.ledgerStates()).toEqual(
      inDoubt.length === 0
        ? { accepted: total }
        : { accepted: total - inDoubt.length, 'in-doubt': inDoubt.length },
    );
  }, 90_000);

  test("a lone document whose attempt met a 500 is retried within the backoff, not after the feeder's idle minute", async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { errorRate: 1 },
      companies: [COMPANY_MAIN],
    });
    await startDaemon();
    await project.drop('invoice', 'lone.json', jsonText(invoice(990_000_001)));
    await eventually(
      async () =>
        ((await emulator.client.stats())?.faultsInjected.error ?? 0) > 0 ? true : undefined,
      'a 500',
    );
    await emulator.client.setFaults({});
    const result = await project.finalResult('invoice', 'lone.json', { timeoutMs: 5_000 });
    expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
    expect(result.documents[0].status).toBe('accepted');
  }, 30_000);

  test('support documents without their own number whose answers are lost end in-doubt and are never resent', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { dropAfterCommitRate: 1, randomSeed: 7 },
      companies: [COMPANY_MAIN],
    });
    let daemon = await startDaemon();
    await project.drop(
      'support-document',
      'unnumbered.json',
      jsonText([supportDocument(), supportDocument(), supportDocument()]),
    );
    const result = await project.finalResult('support-document', 'unnumbered.json');
    expect(result.counts).toMatchObject({ total: 3, inDoubt: 3, accepted: 0, failed: 0 });
    expect(result.documents.map((d) => d.status)).toEqual(['in-doubt', 'in-doubt', 'in-doubt']);
    expect(result.documents.every((d) => d.key === null)).toBe(true);
    expect(result.documents.every((d) => d.errors.length > 0)).toBe(true);

    // A restart does not resend them either.
    await daemon.stop();
    await emulator.client.setFaults({});
    daemon = await startDaemon();
    await sleep(1_000);
    const issued = await emulator.client.documents({ kind: 'support-document' });
    expect(issued).toHaveLength(3);
    expect(issued.every((d) => d.accepted)).toBe(true);
    expect(new Set(issued.map((d) => d.number)).size).toBe(3);
    expect((await emulator.client.stats()).requests.E5).toEqual({ 'no-answer': 3 });
    expect(project.ledgerStates()).toEqual({ 'in-doubt': 3 });
  }, 60_000);
});
