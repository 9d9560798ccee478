/**
 * Issue 13 "Must show" 1, the cluster torture: N nodes (`edoc-bridge run`, child processes) share one
 * PostgreSQL ledger and one project folder; C companies, each with its own rate cap, get numbered invoices
 * (JSONL and CSV) and documents the service numbers (support documents and POS without a number, each
 * with a unique marker); the emulator answers 500s, 502s, resets and accepted-then-dropped answers
 * (seeded). Chaos: SIGKILL of a random node K times, restarted under the same name (as a service manager
 * would); once a node that holds companies frozen with SIGSTOP past its lease, then SIGCONT; once a node's
 * database sessions ended with pg_terminate_backend while it has documents `sending`. Then the faults
 * stop, every node runs, every file's final report is awaited, and all nodes stop with SIGTERM.
 * The checks (cluster-checks.ts) use the emulator's records, the outbox and SQL reads of the ledger.
 * Shared by the long run (test/torture) and the short one inside `npm test` (test/reliability).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mulberry32 } from '../../../src/emulator/faults.js';
import {
  ClusterNode,
  clusterCompanies,
  createClusterProject,
  LedgerReader,
  type ClusterProject,
} from '../../helpers/cluster-project.js';
import {
  eventually,
  sleep,
  startTestEmulator,
  type ResultJson,
  type TestEmulator,
} from '../../helpers/daemon-harness.js';
import { findSecrets } from '../../helpers/torture-project.js';
import {
  checkFiles,
  checkNumbered,
  checkRates,
  checkServiceNumbered,
  type FilesCheck,
  type NumberedCheck,
  type ServiceCheck,
} from './cluster-checks.js';
import { planFiles, type PlannedFile, type PlanOptions } from './cluster-plan.js';
import { Timeline, type OverCapWindow } from './cluster-timeline.js';

export interface ClusterOptions extends PlanOptions {
  nodes: number;
  companies: number;
  /** Requests per second of each company, cycled (each company's own cap). */
  rates: readonly number[];
  leaseMs: number;
  kills: number;
  /** Each kill comes after min + uniform [0, spread) ms; the node restarts after restartMs likewise. */
  killEveryMs: { min: number; spread: number };
  restartMs: { min: number; spread: number };
  /** How long the frozen node stays stopped, in leases (2–3). */
  freezeLeases: number;
  seed: number;
  latencyMs: number;
  finishTimeoutMs: number;
}

export interface ClusterReport
  extends NumberedCheck, Omit<ServiceCheck, 'inDoubtList'>, FilesCheck {
  nodes: number;
  companies: number;
  leaseMs: number;
  kills: number;
  /** Kills of a node holding live leases / with documents `sending` for its companies at that moment. */
  killsOfOwners: number;
  killsMidSend: number;
  frozen: Record<string, unknown>;
  cut: Record<string, unknown>;
  inDoubtList: string[];
  ledgerStates: Record<string, number>;
  sendingLeft: number;
  busiest: Record<string, string>;
  overCap: number;
  /** Where a company went over its cap, with the chaos and lease events around it. */
  overCapWindows: OverCapWindow[];
  /**
   * The longest stall of this process's event loop (where the emulator counts arrivals): a stall bunches
   * arrivals, so a busiest second is only as exact as this.
   */
  harnessStallMaxMs: number;
  /** Nodes whose final SIGTERM did not end with exit code 0. */
  uncleanStops: number;
  /** Runs that ended on their own (not killed by the scenario), with their exit. */
  unexpectedExits: string[];
  emulatorRequests: number;
  faultsInjected: Record<string, number>;
  secretsFound: number;
  filesSearched: number;
  problems: string[];
  /** Companies over their cap at the emulator (apart: on a loaded machine arrival jitter alone does it, see docs/benchmarks.md). */
  rateProblems: string[];
  seconds: number;
}

interface Chaos {
  project: ClusterProject;
  nodes: ClusterNode[];
  ledger: LedgerReader;
  random: () => number;
  o: ClusterOptions;
  unexpectedExits: string[];
  timeline: Timeline;
  log: (line: string) => void;
}

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)];

/** Restarts every node that is not running, noting runs that ended without the scenario ending them. */
async function reviveAll(
  c: Chaos,
  expectedDead: ClusterNode | undefined = undefined,
): Promise<void> {
  for (const n of c.nodes) {
    if (n.running) continue;
    if (n !== expectedDead && n.process !== undefined) {
      const e = await n.process.exited;
      c.unexpectedExits.push(
        `${n.name} run ${n.starts}: ${JSON.stringify(e)} ${n.process.stderr.slice(-300)}`,
      );
    }
    await n.start();
    c.timeline.mark(`${n.name} up (run ${n.starts})`);
  }
}

/** SIGSTOP a node that holds companies for freezeLeases × leaseMs, until others hold them; then SIGCONT. */
async function freeze(c: Chaos): Promise<Record<string, unknown>> {
  const owned = await c.ledger.owned();
  const victim = c.nodes.find((n) => n.running && (owned.get(n.name)?.length ?? 0) > 0);
  if (victim === undefined)
    return { skipped: `no running node holds a lease: ${JSON.stringify([...owned])}` };
  const companies = owned.get(victim.name) ?? [];
  const stoppedAt = Date.now();
  victim.signal('SIGSTOP');
  c.timeline.mark(`SIGSTOP ${victim.name} (holds ${companies.join(', ')})`);
  let takenOverMs: number | null = null;
  try {
    takenOverMs = await eventually(
      async () => {
        const now = await c.ledger.leases();
        const moved = companies.every((co) =>
          now.some((l) => l.company === co && l.live && l.owner !== victim.name),
        );
        return moved ? Date.now() - stoppedAt : undefined;
      },
      "the frozen node's companies held by other nodes",
      c.o.leaseMs * (c.o.freezeLeases + 2) + 10_000,
    );
  } catch {
    // reported below: not taken over while frozen
  }
  const rest = c.o.leaseMs * c.o.freezeLeases - (Date.now() - stoppedAt);
  if (rest > 0) await sleep(rest);
  const frozenMs = Date.now() - stoppedAt;
  victim.signal('SIGCONT');
  c.timeline.mark(`SIGCONT ${victim.name}`);
  // After it resumes it may go on (fenced, holding nothing it lost) or exit; either way it must not send for them.
  await sleep(c.o.leaseMs);
  const after = await c.ledger.leases();
  return {
    node: victim.name,
    companies,
    frozenMs,
    takenOverMs,
    stillRunning: victim.running,
    holdsAgain: after.filter((l) => l.owner === victim.name && l.live).map((l) => l.company),
  };
}

/** pg_terminate_backend on a node's sessions while it has documents `sending` (the first such node seen). */
async function cut(c: Chaos): Promise<Record<string, unknown>> {
  let target: { node: ClusterNode; sending: number } | undefined;
  try {
    target = await eventually(
      async () => {
        const owned = await c.ledger.owned();
        for (const n of c.nodes.filter((x) => x.running)) {
          const sending = await c.ledger.sending(owned.get(n.name) ?? []);
          if (sending > 0) return { node: n, sending };
        }
        return undefined;
      },
      'a node with documents sending',
      20_000,
    );
  } catch {
    return { skipped: 'no node had documents sending for 20 s' };
  }
  const { node, sending } = target;
  const pid = node.pid;
  if (pid === undefined) return { skipped: `${node.name} stopped meanwhile` };
  const ended = await c.ledger.terminateBackendsOf(pid);
  c.timeline.mark(`pg_terminate_backend ${node.name} (${ended.backends} sessions)`);
  await sleep(c.o.leaseMs);
  return { node: node.name, sendingAtCut: sending, ...ended, stillRunning: node.running };
}

export async function runClusterScenario(
  o: ClusterOptions,
  log: (line: string) => void = () => {},
): Promise<ClusterReport> {
  const started = Date.now();
  const problems: string[] = [];
  const companies = clusterCompanies(o.companies, o.rates);
  const faults = {
    errorRate: 0.05,
    badGatewayRate: 0.05,
    resetRate: 0.05,
    dropAfterCommitRate: 0.05,
    latencyMs: o.latencyMs,
    randomSeed: o.seed,
  };
  let emulator: TestEmulator | undefined;
  let made: Awaited<ReturnType<typeof createClusterProject>> | undefined;
  let ledger: LedgerReader | undefined;
  const nodes: ClusterNode[] = [];
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  try {
    emulator = await startTestEmulator(companies, faults);
    const timeline = new Timeline();
    timeline.trace(emulator);
    made = await createClusterProject(
      {
        baseUrl: emulator.url,
        companies,
        retry: { maxAttempts: 100, baseDelayMs: 20, maxDelayMs: 300 },
      },
      o.leaseMs,
    );
    const { project, db } = made;
    ledger = await LedgerReader.open(db);
    for (let i = 0; i < o.nodes; i++)
      nodes.push(new ClusterNode(`node-${String.fromCharCode(97 + i)}`, project));
    const plan = planFiles(companies, o);
    const random = mulberry32(o.seed);
    const c: Chaos = { project, nodes, ledger, random, o, unexpectedExits: [], timeline, log };
    const drop = async (files: readonly PlannedFile[]): Promise<void> => {
      for (const f of files) await project.drop(f.kind, f.name, f.content, f.company.alias);
    };

    // A third of the files are there before the nodes start; the rest arrive during the first half of the kills.
    const later = [...plan];
    await drop(later.splice(0, Math.ceil(plan.length / 3)));
    await Promise.all(nodes.map((n) => n.start()));
    timeline.mark('all nodes up');
    await eventually(
      async () => (((await ledger?.owned()) ?? new Map()).size > 0 ? true : undefined),
      'leases held',
      30_000,
    );
    const perKill = Math.max(1, Math.ceil(later.length / Math.max(1, Math.ceil(o.kills / 2))));
    // the cut early, while most documents are still to go; the freeze after it
    const cutAt = Math.floor(o.kills / 5);
    const freezeAt = Math.floor(o.kills / 2);
    let frozen: Record<string, unknown> = { skipped: 'not reached' };
    let cutReport: Record<string, unknown> = { skipped: 'not reached' };
    let killsOfOwners = 0;
    let killsMidSend = 0;
    for (let k = 0; k < o.kills; k++) {
      await drop(later.splice(0, perKill));
      await sleep(o.killEveryMs.min + Math.floor(random() * o.killEveryMs.spread));
      if (k === freezeAt) frozen = await freeze(c);
      if (k === cutAt) cutReport = await cut(c);
      await reviveAll(c);
      const victim = pick(random, nodes);
      const held = (await ledger.owned()).get(victim.name) ?? [];
      if (held.length > 0) killsOfOwners++;
      if ((await ledger.sending(held)) > 0) killsMidSend++;
      await victim.kill();
      timeline.mark(`SIGKILL ${victim.name} (holds ${held.join(', ') || 'nothing'})`);
      await sleep(o.restartMs.min + Math.floor(random() * o.restartMs.spread));
      await reviveAll(c, victim);
      if (k % 10 === 9) log(`kill ${k + 1}/${o.kills}: ${JSON.stringify(await ledger.states())}`);
    }
    await drop(later.splice(0));
    await emulator.client.setFaults({});
    await reviveAll(c);

    const results = new Map<PlannedFile, ResultJson>();
    for (const f of plan) {
      const r = await nodes[0].view
        .finalResult(f.kind, f.name, { company: f.company.alias, timeoutMs: o.finishTimeoutMs })
        .catch((err: Error) => {
          problems.push(err.message.split('\n')[0]);
          return undefined;
        });
      if (r !== undefined) results.set(f, r);
    }
    // what follows reads files synchronously: stalls from here on do not bunch any sending
    const stallMaxMs = Math.round(stalls.max / 1e6);
    let uncleanStops = 0;
    for (const e of await Promise.all(nodes.map((n) => n.stop())))
      if (e !== undefined && e.code !== 0) uncleanStops++;
    if (uncleanStops > 0) problems.push(`${uncleanStops} nodes did not stop cleanly on SIGTERM`);

    const numbered = await checkNumbered(plan, emulator.client, ledger, problems);
    const service = await checkServiceNumbered(plan, results, emulator.client, ledger, problems);
    const files = await checkFiles(plan, results, project, problems);
    const stats = await emulator.client.stats();
    const rateProblems: string[] = [];
    const rates = checkRates(companies, stats.busiestSecond, rateProblems);
    const ledgerStates = await ledger.states();
    const sendingLeft = ledgerStates.sending ?? 0;
    if (sendingLeft > 0) problems.push(`${sendingLeft} documents left sending`);
    const expectedStates = {
      accepted: numbered.numbered - numbered.numberedInDoubt + service.serviceAccepted,
      'in-doubt': numbered.numberedInDoubt + service.serviceInDoubt,
    };
    if (
      (ledgerStates.accepted ?? 0) !== expectedStates.accepted ||
      (ledgerStates['in-doubt'] ?? 0) !== expectedStates['in-doubt']
    ) {
      problems.push(
        `the ledger holds ${JSON.stringify(ledgerStates)}, the reports and the emulator say ${JSON.stringify(expectedStates)}`,
      );
    }
    const secrets = [db.server.password, ...companies.map((co) => co.apiKey)];
    const found = findSecrets(project.dir, secrets);
    const outputs = nodes.filter((n) => secrets.some((s) => n.output().includes(s)));
    for (const h of found.hits) problems.push(`a secret is written in ${h.file}`);
    for (const n of outputs) problems.push(`a secret is in ${n.name}'s stdout/stderr`);
    return {
      nodes: o.nodes,
      companies: o.companies,
      leaseMs: o.leaseMs,
      kills: o.kills,
      killsOfOwners,
      killsMidSend,
      frozen,
      cut: cutReport,
      ...numbered,
      ...service,
      inDoubtList: service.inDoubtList.map((d) => `${d.marker}${d.issued ? ' (issued)' : ''}`),
      ...files,
      ledgerStates,
      sendingLeft,
      ...rates,
      overCapWindows: timeline.overCap(companies, nodes),
      harnessStallMaxMs: stallMaxMs,
      uncleanStops,
      unexpectedExits: c.unexpectedExits,
      emulatorRequests: stats.totalRequests,
      faultsInjected: stats.faultsInjected,
      secretsFound: found.hits.length + outputs.length,
      filesSearched: found.filesSearched,
      problems,
      rateProblems,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    stalls.disable();
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    await ledger?.close();
    await emulator?.close();
    if (process.env.EDOC_TORTURE_KEEP === undefined) {
      await made?.project.remove();
      await made?.db.drop();
    } else log(`kept ${made?.project.dir} and database ${made?.db.name}`);
  }
}
