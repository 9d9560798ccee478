/**
 * Reliability suite 3, "Faults around it": the outbox not writable (its kind
 * folder replaced by a file — chmod does not stop root) and full (a tiny tmpfs
 * filled up); the state folder locked by another instance; the service down
 * (emulator stopped, restarted on the same port with its state); a wrong key
 * fixed by SIGHUP. Each returns counts and the problems it saw, and searches the
 * project for every key it used (suite 4).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import {
  COMPANY_MAIN,
  DaemonProcess,
  eventually,
  sleep,
  startTestEmulator,
  type ProjectOptions,
  type TestEmulator,
} from '../../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../../helpers/documents.js';
import {
  createMappedProject,
  findSecrets,
  MappedProject,
  salesCsv,
} from '../../helpers/torture-project.js';

export interface FaultReport {
  scenario: string;
  documents: number;
  accepted: number;
  issued: number;
  duplicated: number;
  reportsWritten: number;
  secretsFound: number;
  problems: string[];
  details: Record<string, unknown>;
  seconds: number;
}

const numbers = (first: number, n: number): number[] =>
  Array.from({ length: n }, (_, k) => first + k);

async function issuedCounts(
  client: TestEmulator['client'],
): Promise<{ issued: number; duplicated: number }> {
  const issued = await client.issued({ company: COMPANY_MAIN.id });
  const seen = new Map<string, number>();
  for (const d of issued) seen.set(d.number, (seen.get(d.number) ?? 0) + 1);
  return { issued: issued.length, duplicated: [...seen.values()].filter((n) => n > 1).length };
}

function secretsIn(dir: string, keys: readonly string[], problems: string[]): number {
  const { hits } = findSecrets(dir, keys);
  for (const h of hits) problems.push(`a key is written in ${h.file}`);
  return hits.length;
}

// --- the outbox not writable, then full ---------------------------------------------

export async function runOutboxScenario(o: {
  documents: number;
  blockedMs: number;
}): Promise<FaultReport> {
  const started = Date.now();
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  const emulator = await startTestEmulator([COMPANY_MAIN]);
  const project = await createMappedProject({ baseUrl: emulator.url, companies: [COMPANY_MAIN] });
  let daemon: DaemonProcess | undefined;
  let mounted: string | undefined;
  let reportsWritten = 0;
  try {
    // (1) As root, chmod 000 stops nothing: the kind folder becomes a file of the same name instead.
    const outbox = project.outbox('invoice');
    await mkdir(path.dirname(outbox), { recursive: true });
    await writeFile(outbox, 'not a folder\n');
    daemon = await DaemonProcess.start(project);
    const first = numbers(990_000_001, o.documents);
    await project.drop('invoice', 'bloqueado.jsonl', jsonlText(first.map((n) => invoice(n))));
    await eventually(
      () => (project.ledgerStates().accepted === first.length ? true : undefined),
      'documents accepted',
      30_000,
    );
    await daemon.waitForLog((l) => l.code === 'EDOC_REPORT_WRITE');
    await sleep(o.blockedMs);
    if ((await project.result('invoice', 'bloqueado.jsonl')) !== undefined)
      problems.push('a report appeared while the outbox was a file');
    const failures = daemon.logLines().filter((l) => l.code === 'EDOC_REPORT_WRITE').length;
    details.reportWriteErrorLines = failures;
    if (failures !== 1)
      problems.push(`${failures} EDOC_REPORT_WRITE lines while blocked (expected one)`);
    await rm(outbox);
    const r1 = await project.finalResult('invoice', 'bloqueado.jsonl', { timeoutMs: 30_000 });
    reportsWritten++;
    if (r1.counts.accepted !== first.length)
      problems.push(`after unblocking: ${JSON.stringify(r1.counts)}`);
    await daemon.waitForLog((l) => /outbox writable again/.test(l.msg));

    // (1b) Blocked across a crash: the restart writes the report from the ledger.
    await rm(outbox, { recursive: true, force: true });
    await writeFile(outbox, 'not a folder\n');
    const second = numbers(990_001_001, o.documents);
    await project.drop('invoice', 'bloqueado-2.csv', salesCsv(second));
    await eventually(
      () => (project.ledgerStates().accepted === first.length + second.length ? true : undefined),
      'second file accepted',
      30_000,
    );
    await daemon.kill();
    await rm(outbox);
    daemon = await DaemonProcess.start(project);
    const r2 = await project.finalResult('invoice', 'bloqueado-2.csv', { timeoutMs: 30_000 });
    reportsWritten++;
    if (r2.counts.accepted !== second.length)
      problems.push(`after a crash while blocked: ${JSON.stringify(r2.counts)}`);

    // (2) Disk full: the outbox root on a small tmpfs, filled up to the last byte (root may mount; skipped with a
    // note when not). Big enough for the reports and the archived original once the filler is gone.
    await daemon.stop();
    const outboxRoot = path.join(project.dir, 'outbox');
    await rm(outboxRoot, { recursive: true, force: true });
    await mkdir(outboxRoot);
    const mount = spawnSync('mount', [
      '-t',
      'tmpfs',
      '-o',
      `size=${Math.max(1, Math.ceil(o.documents / 50))}m`,
      'tmpfs',
      outboxRoot,
    ]);
    details.tmpfs =
      mount.status === 0 ? 'mounted' : `not available: ${mount.stderr.toString().trim()}`;
    if (mount.status === 0) {
      mounted = outboxRoot;
      spawnSync('dd', ['if=/dev/zero', `of=${path.join(outboxRoot, 'filler')}`, 'bs=4k'], {
        stdio: 'ignore',
      });
      daemon = await DaemonProcess.start(project);
      const third = numbers(990_002_001, o.documents);
      const before = project.ledgerStates().accepted ?? 0;
      await project.drop('invoice', 'disco-lleno.jsonl', jsonlText(third.map((n) => invoice(n))));
      // A full disk pauses the daemon with one EDOC_STORAGE_FULL line (issue 12 item 10): sending may stop
      // before every document went, so the documents are counted once the space is back.
      await daemon.waitForLog((l) => l.code === 'EDOC_STORAGE_FULL' && l.level === 'error');
      await sleep(o.blockedMs);
      await rm(path.join(outboxRoot, 'filler'));
      await eventually(
        () => (project.ledgerStates().accepted === before + third.length ? true : undefined),
        'third file accepted',
        30_000,
      );
      const r3 = await project.finalResult('invoice', 'disco-lleno.jsonl', { timeoutMs: 30_000 });
      reportsWritten++;
      if (r3.counts.accepted !== third.length)
        problems.push(`after the disk had room again: ${JSON.stringify(r3.counts)}`);
      // The original moves to the archive across file systems (inbox on /tmp, outbox on the tmpfs).
      const archived = await eventually(
        () =>
          project
            .logLines()
            .find((l) => l.msg === 'file complete' && l.file === 'disco-lleno.jsonl'),
        'file complete',
        15_000,
      );
      details.archivedAcrossFileSystems = archived.archived ?? null;
      if (typeof archived.archived !== 'string')
        problems.push(
          `the original was not archived across file systems: ${JSON.stringify(archived)}`,
        );
    }
    const exit = await daemon.stop();
    if (exit.code !== 0) problems.push(`SIGTERM exit ${JSON.stringify(exit)}`);
    if (daemon.logLines().some((l) => l.level === 'fatal' || l.msg === 'intake failed'))
      problems.push('crash lines in the log');
    const counts = await issuedCounts(emulator.client);
    const documents = o.documents * (mounted ? 3 : 2);
    if (counts.issued !== documents || counts.duplicated !== 0)
      problems.push(`issued ${JSON.stringify(counts)} of ${documents}`);
    const secretsFound = secretsIn(project.dir, [COMPANY_MAIN.apiKey], problems);
    return {
      scenario: 'outbox not writable / full',
      documents,
      accepted: project.ledgerStates().accepted ?? 0,
      ...counts,
      reportsWritten,
      secretsFound,
      problems,
      details,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await daemon?.stop();
    if (mounted) spawnSync('umount', [mounted]);
    await emulator.close();
    await project.remove();
  }
}

// --- the state folder locked by another instance ----------------------------------------

/** A second installation (own inbox, outbox, logs and configuration file) pointed at the first one's state folder. */
class SharedStateProject extends MappedProject {
  constructor(
    dir: string,
    options: ProjectOptions,
    private readonly sharedState: string,
  ) {
    super(dir, options);
  }

  override configText(options: ProjectOptions = this.options): string {
    const config = parse(super.configText(options)) as { paths: Record<string, string> };
    config.paths.state = this.sharedState;
    return stringify(config);
  }
}

export async function runLockedStateScenario(o: { documents: number }): Promise<FaultReport> {
  const started = Date.now();
  const problems: string[] = [];
  const emulator = await startTestEmulator([COMPANY_MAIN], { latencyMs: 20 });
  const options = {
    baseUrl: emulator.url,
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 20, concurrency: 2 } }],
  };
  const project = await createMappedProject(options);
  const other = new SharedStateProject(
    await mkdtemp(path.join(os.tmpdir(), 'edoc-torture-other-')),
    options,
    project.stateDir,
  );
  await other.writeConfig();
  let first: DaemonProcess | undefined;
  let second: DaemonProcess | undefined;
  try {
    first = await DaemonProcess.start(project);
    const docs = numbers(990_000_001, o.documents);
    await project.drop('invoice', 'en-curso.jsonl', jsonlText(docs.map((n) => invoice(n))));
    await other.drop('invoice', 'de-la-otra.jsonl', jsonlText([invoice(990_500_001)]));
    await eventually(
      () => ((project.ledgerStates().accepted ?? 0) > 0 ? true : undefined),
      'first documents accepted',
    );
    // Mid-work, another instance with its own configuration file tries the same state folder.
    second = DaemonProcess.spawn(other);
    const exit = await second.exited;
    if (exit.code !== 2)
      problems.push(`the second instance exited ${JSON.stringify(exit)} (expected 2)`);
    for (const needle of ['EDOC_LEDGER_LOCKED', project.stateDir, `pid ${first.child.pid}`]) {
      if (!second.stderr.includes(needle))
        problems.push(
          `the second instance's message does not name ${needle}: ${second.stderr.slice(0, 300)}`,
        );
    }
    const result = await project.finalResult('invoice', 'en-curso.jsonl', { timeoutMs: 60_000 });
    if (result.counts.accepted !== docs.length)
      problems.push(`the first instance's file: ${JSON.stringify(result.counts)}`);
    if (!first.running) problems.push('the first instance stopped');
    const taken = project.logLines().some((l) => l.file === 'de-la-otra.jsonl');
    if (taken) problems.push('the locked-out instance took a file');
    const counts = await issuedCounts(emulator.client);
    if (counts.issued !== docs.length || counts.duplicated !== 0)
      problems.push(`issued ${JSON.stringify(counts)}`);
    const secretsFound =
      secretsIn(project.dir, [COMPANY_MAIN.apiKey], problems) +
      secretsIn(other.dir, [COMPANY_MAIN.apiKey], problems);
    return {
      scenario: 'state folder locked',
      documents: docs.length,
      accepted: result.counts.accepted,
      ...counts,
      reportsWritten: 1,
      secretsFound,
      problems,
      details: { secondExit: exit, message: second.stderr.trim().split('\n')[0] },
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await second?.stop();
    await first?.stop();
    await emulator.close();
    await project.remove();
    await other.remove();
  }
}
