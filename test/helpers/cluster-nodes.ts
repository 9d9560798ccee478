/**
 * Cluster nodes as real child processes (`edoc-bridge run`), sharing one PostgreSQL ledger and one project
 * folder (inbox, outbox: the "shared file system" of production, one local folder here); each node has its
 * own state and log folders and its own name. Built on daemon-harness.ts (Project, DaemonProcess).
 *
 *   const cluster = await ClusterProject.create({ baseUrl, companies, url: db().url, leaseMs: 1_500 });
 *   const a = await cluster.start('a');      // waits until it watches the inbox
 *   await cluster.drop('invoice', 'x.json', text, 'c1');
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { nitCheckDigit } from '../../src/policy/nit.js';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresExecutor } from '../../src/ledger/sql/postgres.js';
import type { SqlExecutor } from '../../src/ledger/sql/executor.js';
import { BUILD_TIMEOUT_MS } from './daemon-fixture.js';
import {
  buildCli,
  createProject,
  DaemonProcess,
  Project,
  startTestEmulator,
  type ProjectOptions,
  type TestCompany,
  type TestEmulator,
} from './daemon-harness.js';
import type { FaultSet } from './emulator-client.js';
import type { PgDatabase } from './postgres.js';

/** A test company `c<i>` with a valid NIT and its own key. */
export function clusterCompany(
  i: number,
  rate = { requestsPerSecond: 40, concurrency: 4 },
): TestCompany {
  const nit = String(900_100_000 + i * 7);
  return {
    alias: `c${i}`,
    id: 2_000 + i,
    nit,
    checkDigit: nitCheckDigit(nit),
    apiKey: `test-key-c${i}`,
    userId: 10 + i,
    rate,
  };
}

export interface ClusterProjectOptions extends ProjectOptions {
  /** The PostgreSQL ledger's URL (with its password: a test database). */
  url: string;
  leaseMs: number;
}

/** What one node's configuration may have of its own: its name, its lease, only some of the companies (aliases). */
export interface NodeOverrides {
  node?: string;
  leaseMs?: number;
  companies?: string[];
  /** Fields of a company's entry replaced in this node's configuration, by alias (a copy edited by hand). */
  replace?: Record<string, Record<string, unknown>>;
  /** Variables added to the node process's environment (e.g. NODE_OPTIONS). */
  env?: Record<string, string>;
}

export class ClusterProject {
  private readonly nodes = new Map<string, Project>();
  /** Every process started or spawned here, ended by close(). */
  private readonly processes: DaemonProcess[] = [];

  private constructor(
    readonly shared: Project,
    readonly options: ClusterProjectOptions,
  ) {}

  static async create(options: ClusterProjectOptions): Promise<ClusterProject> {
    return new ClusterProject(await createProject(options), options);
  }

  /**
   * The node's own project: its configuration, state and log, with the shared inbox and outbox. `cluster`
   * overrides the node's name (else its folder's), its leaseMs, its companies, when made.
   */
  async node(name: string, cluster: NodeOverrides = {}): Promise<Project> {
    let node = this.nodes.get(name);
    if (node !== undefined) return node;
    const dir = path.join(this.shared.dir, 'nodes', name);
    await mkdir(dir, { recursive: true });
    node = new Project(dir, { ...this.options, inboxRoot: path.join(this.shared.dir, 'inbox') });
    const config = parse(node.configText()) as {
      paths: Record<string, string>;
      companies: { alias: string }[];
      [key: string]: unknown;
    };
    const { companies, replace, env: _env, ...own } = cluster;
    if (companies !== undefined)
      config.companies = config.companies.filter((c) => companies.includes(c.alias));
    if (replace !== undefined)
      config.companies = config.companies.map((c) => ({ ...c, ...replace[c.alias] }));
    config.paths.outbox = path.join(this.shared.dir, 'outbox');
    config.ledger = { url: this.options.url };
    config.cluster = { node: name, leaseMs: this.options.leaseMs, ...own };
    // the embedded emulator is never used here; the state folder of each node stays its own
    await writeFile(node.configFile, stringify(config));
    this.nodes.set(name, node);
    return node;
  }

  /** Spawns the node and waits until it watches the inbox. */
  async start(
    name: string,
    timeoutMs = 30_000,
    cluster: NodeOverrides = {},
  ): Promise<DaemonProcess> {
    const node = DaemonProcess.spawn(await this.node(name, cluster), cluster.env);
    this.processes.push(node);
    await node.waitForLog((l) => l.msg === 'watching the inbox', timeoutMs);
    return node;
  }

  async spawn(name: string, cluster: NodeOverrides = {}): Promise<DaemonProcess> {
    const node = DaemonProcess.spawn(await this.node(name, cluster));
    this.processes.push(node);
    return node;
  }

  drop(kind: string, name: string, content: string, company: string): Promise<string> {
    return this.shared.drop(kind, name, content, company);
  }

  finalResult(
    kind: string,
    name: string,
    company: string,
    timeoutMs = 60_000,
  ): ReturnType<Project['finalResult']> {
    return this.shared.finalResult(kind, name, { company, timeoutMs });
  }

  remove(): Promise<void> {
    return this.shared.remove();
  }

  /** Kills every node process started here (a frozen one resumed first, so it can die) and removes the folder. */
  async close(): Promise<void> {
    for (const node of this.processes) {
      node.signal('SIGCONT');
      await node.kill();
    }
    await this.remove();
  }
}

/** What `useClusterNodes` gives a describe block (valid inside its tests). */
export interface ClusterNodesContext {
  readonly emulator: TestEmulator;
  readonly cluster: ClusterProject;
  /** The ledger's database, for the tests' own reads. */
  readonly sql: SqlExecutor;
}

/**
 * The set-up of a cluster suite: the CLI built, an emulator for `companies` (with `faults`), a ClusterProject on
 * the describe block's database, and an executor on it; all of it ended after the block (nodes killed).
 */
export function useClusterNodes(
  db: () => PgDatabase,
  options: {
    companies: readonly TestCompany[];
    leaseMs: number;
    faults?: FaultSet;
    project?: Partial<ProjectOptions>;
  },
): ClusterNodesContext {
  let emulator: TestEmulator | undefined;
  let cluster: ClusterProject | undefined;
  let sql: SqlExecutor | undefined;
  beforeAll(async () => {
    await buildCli();
    emulator = await startTestEmulator(options.companies, options.faults ?? {});
    cluster = await ClusterProject.create({
      ...options.project,
      baseUrl: emulator.url,
      companies: options.companies,
      url: db().url,
      leaseMs: options.leaseMs,
    });
    sql = openPostgresExecutor(db().url);
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.close();
    await sql?.close();
    await emulator?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('useClusterNodes: used outside a test of its describe block');
    return value;
  };
  return {
    get emulator() {
      return ready(emulator);
    },
    get cluster() {
      return ready(cluster);
    },
    get sql() {
      return ready(sql);
    },
  };
}

/** The node whose lease of `company` is in force now (the database's clock), or undefined. */
export async function leaseOwner(sql: SqlExecutor, company: string): Promise<string | undefined> {
  const row = await sql.get<{ owner: string | null }>(
    'SELECT owner FROM company_leases WHERE company = ? AND expires_at > now()',
    [company],
  );
  return row?.owner ?? undefined;
}

/** The most arrivals (epoch ms) in any sliding second, and where that second starts. */
export function busiestSecond(times: readonly number[]): { count: number; from: number } {
  const sorted = [...times].sort((x, y) => x - y);
  let best = { count: 0, from: 0 };
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1_000) j++;
    if (i - j + 1 > best.count) best = { count: i - j + 1, from: sorted[j] };
  }
  return best;
}
