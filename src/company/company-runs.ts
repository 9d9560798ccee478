/**
 * Which companies this process runs, one CompanyRun each (company-run.ts). With the SQLite ledger one
 * process runs every company it sends for, each run made at start. With `ledger.url` the process is a
 * node of a cluster (cluster/) and this map is the lease keeper's only listener: a company's run starts
 * when its lease is taken (its last owner's `sending` documents recovered first, as a restart would),
 * is handed over (drained) or lost (stopped at once) when its lease goes, and its gate follows the lease.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import type { LeaseEnd, LeaseEvents } from '../cluster/lease-keeper.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import { CompanyRates } from '../rate/company-rate.js';
import type { CompanySender, SenderView } from '../submit/company-sender.js';
import { leaseGate, OPEN_GATE, type CompanyGate } from './company-gate.js';
import { CompanyRun, type CompanyJob, type CompanyRunParts } from './company-run.js';
import { recoverSending } from './recover.js';
import type { Release } from './take-gate.js';
import { takenUnderRefusal } from './taken-under.js';

/** What the runs are started with (the pipeline's parts). */
export interface CompanyRunsParts {
  ledger: LedgerPort;
  logger: AppLogger;
  reports: { touch(fileId: number): void };
  /** Makes a run's sender. */
  sender: CompanyRunParts['sender'];
  /** The company when it is configured and this process sends for it (`submit` sends for one). */
  company(alias: string): CompanyConfig | undefined;
  /** Every company of the configuration in force. */
  companies(): readonly CompanyConfig[];
  stopping(): boolean;
  drainMs: number | undefined;
}

export class CompanyRuns implements LeaseEvents {
  private readonly runs = new Map<string, CompanyRun>();
  private readonly jobMakers: ((run: CompanyRun) => CompanyJob)[] = [];
  private readonly gainedListeners: ((company: string) => void)[] = [];
  /**
   * Each company's one rate, handed to its run. Kept here, not in the run, for what outlives a run: a
   * take-over's quiet time set before the run is made, the last run's requests on this state folder
   * (`previousRun`), and a company removed by a reload and added again getting its rate back.
   */
  private readonly rates = new CompanyRates();
  private parts: CompanyRunsParts | undefined;
  /** What recovery found left `sending` (at start; in a cluster, summed over the companies taken). */
  recovered = { resent: 0, inDoubt: 0 };

  /** Cluster mode (ledger.url): this node; undefined with the SQLite ledger. */
  readonly cluster: ClusterNode | undefined;

  private constructor(cluster: (events: LeaseEvents) => ClusterNode | undefined) {
    this.cluster = cluster(this);
  }

  /**
   * For the configuration: a cluster node with `ledger.url`, else one process running everything. Nothing
   * connects yet; the cluster's modules (and node-postgres) are loaded only with `ledger.url`.
   */
  static async for(
    config: Readonly<Config>,
    logger: AppLogger,
    companies: () => readonly CompanyConfig[],
  ): Promise<CompanyRuns> {
    const url = config.ledger?.url;
    if (url === undefined) return new CompanyRuns(() => undefined);
    const { ClusterNode: Node } = await import('../cluster/cluster-node.js');
    return new CompanyRuns(
      (events) =>
        new Node({
          url,
          inbox: config.paths.inbox,
          node: config.cluster.node,
          leaseMs: config.cluster.leaseMs,
          logger,
          companies: () => companies().map((c) => c.alias),
          company: (alias) => companies().find((c) => c.alias === alias),
          events,
        }),
    );
  }

  /** Starts the runs: every company's now (one process), or whichever leases the first heartbeat takes (cluster). */
  async start(parts: CompanyRunsParts, all: readonly CompanyConfig[]): Promise<void> {
    this.parts = parts;
    if (this.cluster !== undefined) {
      await this.cluster.start();
      return;
    }
    this.recovered = await recoverSending(parts.ledger, parts.logger);
    for (const file of [
      ...(await parts.ledger.filesToSettle()),
      ...(await parts.ledger.openFiles()),
    ])
      parts.reports.touch(file.id);
    const here = all.filter((company) => parts.company(company.alias) !== undefined);
    // their start was checked against their open files (root/open-pipeline.ts): they go on under these ids
    await parts.ledger.recordCompanyIds(here);
    for (const company of here) this.run(company);
  }

  /**
   * A job every run owns from its next start on (the daemon's received-documents pull): made per start,
   * stopped with the run. Runs already running get theirs now.
   */
  addJob(make: (run: CompanyRun) => CompanyJob): void {
    this.jobMakers.push(make);
    for (const run of this.runs.values()) run.addJob(make(run));
  }

  /** Stops every run's jobs (the daemon's pulls) before the senders drain; jobs added later still start. */
  async stopJobs(): Promise<void> {
    await Promise.all([...this.runs.values()].map((run) => run.stopJobs()));
  }

  /** The company's gate: always open with one process; in a cluster, its lease. */
  gate(alias: string): CompanyGate {
    return this.cluster === undefined ? OPEN_GATE : leaseGate(this.cluster.keeper, alias);
  }

  /**
   * Another run on this state folder sent for every company until as late as `lastStartMs` from now
   * (daemon/run-marks.ts): no request of any company before one window of its rate past that.
   */
  previousRun(lastStartMs: number): void {
    this.rates.previousRun(lastStartMs);
  }

  /** Whether this process runs the company now: always with one process; in a cluster, while it holds the lease. */
  owns(alias: string): boolean {
    return this.gate(alias).held();
  }

  /** Whether a new request may start for the company now (its gate is open). */
  mayStart(alias: string): boolean {
    return this.gate(alias).open();
  }

  /** A commit of the company was refused by the fence: drop it now. */
  fenced(alias: string): void {
    this.gate(alias).fenced();
  }

  /** Called with each company this node takes over (cluster mode): the daemon takes its inbox files again. */
  onGained(listener: (company: string) => void): void {
    this.gainedListeners.push(listener);
  }

  /** The company's run while it runs here. */
  get(alias: string): CompanyRun | undefined {
    return this.runs.get(alias);
  }

  /** The runs of this process now. */
  list(): readonly CompanyRun[] {
    return [...this.runs.values()];
  }

  /** The company's sender while it runs here. */
  sender(alias: string): CompanySender | undefined {
    return this.runs.get(alias)?.sender;
  }

  /**
   * The company's lease was taken: hold its rate quiet until a window after its last owner's last
   * possible request (`lastStartMs` from the claim), recover what that owner left `sending`, settle and
   * report its files, start its run — before any request of this node for the company. Its open files
   * taken under another NIT or id than this node's entry of it (the node that took them had another entry, and
   * is gone) refuse it, as they refuse a start: the lease keeper releases it, and nothing of those files
   * is issued under another company.
   */
  async gained(alias: string, _epoch: number, lastStartMs: number): Promise<void> {
    const parts = this.parts;
    if (parts === undefined || parts.stopping()) return;
    const { ledger, logger } = parts;
    const refusal = await takenUnderRefusal(
      ledger,
      { companies: parts.companies() },
      (a) => a === alias,
    );
    if (refusal !== undefined) throw refusal;
    const entry = parts.company(alias);
    if (entry !== undefined) await ledger.recordCompanyIds([entry]);
    this.rates.tookOver(alias, lastStartMs);
    const recovered = await recoverSending(ledger, logger, alias);
    this.recovered = {
      resent: this.recovered.resent + recovered.resent,
      inDoubt: this.recovered.inDoubt + recovered.inDoubt,
    };
    for (const file of [...(await ledger.filesToSettle(alias)), ...(await ledger.openFiles(alias))])
      parts.reports.touch(file.id);
    if (parts.stopping() || !this.owns(alias)) return;
    const company = parts.company(alias);
    if (company !== undefined) this.run(company);
    for (const listener of this.gainedListeners) listener(alias);
  }

  /**
   * The company is no longer this node's: handed over (drained) or lost (stopped at once). Its reports are
   * not written here: the next owner settles and reports every open file of the company when it takes it
   * (`gained`), and a flush here would write every company's due reports before the lease is released,
   * holding the hand-over up for seconds on a large ledger.
   */
  async ended(alias: string, why: LeaseEnd): Promise<void> {
    const run = this.runs.get(alias);
    if (run === undefined) return;
    this.runs.delete(alias);
    await (why === 'lost' ? run.lose() : run.handOver(this.parts?.drainMs));
  }

  /** How long the company has had no request in flight here: a lease released tells its next owner. */
  quietForMs(alias: string): number {
    return this.parts === undefined ? 0 : this.rates.quietForMs(alias);
  }

  /**
   * A reload: each run gets its company's new configuration; companies gone are closed; `starts` says which
   * new ones start here. A company paused by a 401 resumes only when the reload changed what its requests
   * are sent with (`before`: the configuration it replaces): a reload that left the refused key as it was
   * (logrotate's daily reload, a rate change) would only be refused again, with another alert.
   */
  async reload(
    next: Readonly<Config>,
    starts: (alias: string) => boolean,
    before?: Readonly<Config>,
  ): Promise<void> {
    for (const company of next.companies) {
      const run = this.runs.get(company.alias);
      if (run) {
        const resume =
          before === undefined || credentialsChanged(run.company, company, before, next);
        if (!resume && run.pause.paused !== undefined)
          this.parts?.logger.warn(
            { company: company.alias },
            'configuration reloaded: the company stays paused (its key, ids and the service address are those the service refused)',
          );
        // the reload's check let it change while none of its files has documents to send under the old id
        if (run.company.id !== company.id) await this.parts?.ledger.recordCompanyIds([company]);
        run.reload(company, next.retry, resume);
      } else if (starts(company.alias)) {
        await this.parts?.ledger.recordCompanyIds([company]);
        this.run(company);
      }
    }
    for (const [alias, run] of [...this.runs]) {
      if (next.companies.some((c) => c.alias === alias)) continue;
      this.runs.delete(alias);
      await run.close();
    }
  }

  /**
   * Holds alone the take gate of every running company whose id or NIT `next` changes (in alias order):
   * once it resolves, each file taken for them is recorded and none is taken until the release, so a
   * reload's check of their open files and its change are one step.
   */
  async deciding(next: Readonly<Config>): Promise<Release> {
    const releases: Release[] = [];
    for (const run of [...this.runs.values()].sort((a, b) => a.alias.localeCompare(b.alias))) {
      const now = next.companies.find((c) => c.alias === run.alias);
      if (now !== undefined && (now.id !== run.company.id || now.nit !== run.company.nit))
        releases.push(await run.takes.decide());
    }
    return () => {
      for (const release of releases) release();
    };
  }

  wake(): void {
    for (const run of this.runs.values()) run.wake();
  }

  /** What each running company's sender is doing now (the console). */
  views(): SenderView[] {
    return [...this.runs.values()].flatMap((run) => run.view() ?? []);
  }

  /** No more companies taken (the pipeline stops); those held stay renewed until leave(). */
  quiesce(): void {
    this.cluster?.keeper.quiesce();
  }

  /** Closes every run (in-flight requests finish up to `drainMs`). Idempotent. */
  async close(drainMs?: number): Promise<void> {
    const all = [...this.runs.values()];
    this.runs.clear();
    await Promise.all(all.map((run) => run.close(drainMs)));
  }

  /** Cluster: releases every lease at once and leaves. Idempotent. */
  async leave(): Promise<void> {
    await this.cluster?.close();
  }

  /** Makes and starts the company's run unless it runs already. */
  private run(company: CompanyConfig): void {
    const parts = this.parts;
    if (parts === undefined || this.runs.has(company.alias)) return;
    const run = new CompanyRun(company, this.gate(company.alias), this.rates.of(company), {
      sender: parts.sender,
      jobs: (r) => this.jobMakers.map((make) => make(r)),
    });
    this.runs.set(company.alias, run);
    run.start();
  }
}

/** Whether a reload changed what the company's requests are sent with: its credentials, its ids, the service. */
function credentialsChanged(
  a: CompanyConfig,
  b: CompanyConfig,
  before: Readonly<Config>,
  next: Readonly<Config>,
): boolean {
  return (
    a.apiKey !== b.apiKey ||
    a.id !== b.id ||
    a.userId !== b.userId ||
    a.nit !== b.nit ||
    JSON.stringify(before.service) !== JSON.stringify(next.service)
  );
}
