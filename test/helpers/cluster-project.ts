/**
 * A cluster in one project folder (issue 13): several `edoc-bridge run` nodes as child processes sharing
 * one PostgreSQL ledger (a database of the test server; the password only in the children's PGPASSWORD,
 * never in the URL) and one inbox/outbox, with ONE configuration file: `cluster.node`, `paths.state` and
 * `paths.logs` come from `${EDOC_NODE}`, as an operator would write it. Also: companies with their own
 * ids, NITs, keys and rates; read-only SQL on the ledger beside the running nodes; and a node's database
 * connections found through /proc (its sockets to the server's port), to cut them with
 * pg_terminate_backend whatever the node names its connections.
 */
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parse, stringify } from 'yaml';
import { nitCheckDigit } from '../../src/policy/nit.js';
import { DaemonProcess, sleep, type ProjectOptions, type TestCompany } from './daemon-harness.js';
import { createDatabase, pgServer, pgUrl, type PgDatabase } from './postgres.js';
import { MappedProject } from './torture-project.js';

/** `n` companies with distinct ids, NITs (valid check digits), keys and user ids; `rates[i % rates.length]` requests/s each. */
export function clusterCompanies(
  n: number,
  rates: readonly number[],
  concurrency = 4,
): TestCompany[] {
  return Array.from({ length: n }, (_, i) => {
    const nit = String(901_100_000 + i * 10_007);
    return {
      alias: `co${i + 1}`,
      id: 3001 + i,
      nit,
      checkDigit: nitCheckDigit(nit),
      apiKey: `cluster-key-${3001 + i}-5c1e9a`,
      userId: 40 + i,
      rate: { requestsPerSecond: rates[i % rates.length], concurrency },
    };
  });
}

export interface ClusterSettings {
  db: PgDatabase;
  leaseMs: number;
}

/** The shared project: one configuration with `ledger.url` (no password) and `cluster.node: ${EDOC_NODE}`. */
export class ClusterProject extends MappedProject {
  constructor(
    dir: string,
    options: ProjectOptions,
    readonly cluster: ClusterSettings,
  ) {
    super(dir, options);
  }

  override configText(options: ProjectOptions = this.options): string {
    const config = parse(super.configText(options)) as { paths: Record<string, string> } & Record<
      string,
      unknown
    >;
    const { db, leaseMs } = this.cluster;
    config.ledger = { url: pgUrl(db.server, db.name, null) };
    config.cluster = { node: '${EDOC_NODE}', leaseMs };
    config.paths.state = path.join(this.dir, 'state', '${EDOC_NODE}');
    config.paths.logs = path.join(this.dir, 'logs', '${EDOC_NODE}');
    return stringify(config);
  }

  /** What a node's process gets besides childEnv's PATH, HOME, LANG and TZ. */
  nodeEnv(node: string): Record<string, string> {
    return { EDOC_NODE: node, PGPASSWORD: this.cluster.db.server.password };
  }

  /** The project as one node sees it: its own state folder and log file. */
  nodeView(node: string): MappedProject {
    return new MappedProject(this.dir, this.options, {
      stateDir: path.join(this.dir, 'state', node),
      logFile: path.join(this.dir, 'logs', node, 'edoc-bridge.log'),
    });
  }
}

/** A fresh database on the test server and a project folder whose configuration points every node at it. */
export async function createClusterProject(
  options: ProjectOptions,
  leaseMs: number,
): Promise<{ project: ClusterProject; db: PgDatabase & { drop(): Promise<void> } }> {
  const db = await createDatabase();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-cluster-'));
  const project = new ClusterProject(dir, options, { db, leaseMs });
  await project.writeConfig();
  return { project, db };
}

/** One node: the same name across its restarts (as a service manager restarts it), a new process each run. */
export class ClusterNode {
  readonly view: MappedProject;
  process: DaemonProcess | undefined;
  starts = 0;
  /** stdout and stderr of every finished run (searched for secrets). */
  private earlierOutput = '';

  constructor(
    readonly name: string,
    readonly project: ClusterProject,
  ) {
    this.view = project.nodeView(name);
  }

  get running(): boolean {
    return this.process?.running === true;
  }

  get pid(): number | undefined {
    return this.running ? this.process?.child.pid : undefined;
  }

  /**
   * Spawns the node and waits until it watches the inbox. Only the log's new bytes are read while waiting:
   * the emulator runs in this process, and parsing a node's whole log every 50 ms would stall it and
   * bunch the arrivals it counts for the busiest second.
   */
  async start(timeoutMs = 60_000): Promise<DaemonProcess> {
    if (this.process !== undefined) this.earlierOutput += this.process.stdout + this.process.stderr;
    this.starts++;
    const from = fileSize(this.view.logFile);
    const daemon = DaemonProcess.spawn(this.view, this.project.nodeEnv(this.name));
    this.process = daemon;
    const deadline = Date.now() + timeoutMs;
    let offset = from;
    let rest = '';
    for (;;) {
      const chunk = readFrom(this.view.logFile, offset);
      offset += chunk.length;
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      if (lines.some((l) => l.includes('"msg":"watching the inbox"'))) return daemon;
      if (!daemon.running)
        throw new Error(
          `${this.name} exited while starting: ${JSON.stringify(await daemon.exited)} ${daemon.stderr.slice(-500)}`,
        );
      if (Date.now() > deadline)
        throw new Error(
          `${this.name} did not watch the inbox within ${timeoutMs} ms; stderr: ${daemon.stderr.slice(-500)}`,
        );
      await sleep(50);
    }
  }

  async kill(): Promise<void> {
    await this.process?.kill();
  }

  signal(signal: NodeJS.Signals): void {
    this.process?.signal(signal);
  }

  async stop(
    timeoutMs = 30_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    if (this.process === undefined) return undefined;
    if (!this.process.running) return undefined;
    return this.process.stop(timeoutMs);
  }

  output(): string {
    return (
      this.earlierOutput +
      (this.process === undefined ? '' : this.process.stdout + this.process.stderr)
    );
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The bytes of `file` from `offset` on (none when it does not exist yet). */
function readFrom(file: string, offset: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const chunks: Buffer[] = [];
    for (let at = offset; ;) {
      const buf = Buffer.alloc(1 << 16);
      const n = readSync(fd, buf, 0, buf.length, at);
      if (n <= 0) break;
      chunks.push(buf.subarray(0, n));
      at += n;
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

// --- the ledger, read beside the running nodes ----------------------------------------------------------

export interface LeaseRow {
  company: string;
  owner: string | null;
  epoch: number;
  live: boolean;
}

/** Read-only SQL on the cluster's database as the server's superuser (unix socket), one connection kept. */
export class LedgerReader {
  private constructor(
    private readonly client: pg.Client,
    readonly db: PgDatabase,
  ) {}

  static async open(db: PgDatabase): Promise<LedgerReader> {
    const server = await pgServer();
    const client = new pg.Client({
      host: server.socketDir,
      port: server.port,
      user: server.adminUser,
      database: db.name,
      application_name: 'edoc-cluster-test',
    });
    await client.connect();
    return new LedgerReader(client, db);
  }

  async query<T extends object>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query(sql, params)).rows as T[];
  }

  /** Every lease row; `live` when an owner holds it and it has not expired (the database's clock). */
  async leases(): Promise<LeaseRow[]> {
    try {
      return (
        await this.query<{ company: string; owner: string | null; epoch: string; live: boolean }>(
          'SELECT company, owner, epoch, (owner IS NOT NULL AND expires_at > now()) AS live FROM company_leases ORDER BY company',
        )
      ).map((r) => ({ ...r, epoch: Number(r.epoch) }));
    } catch (err) {
      // before the first node migrated the schema
      if ((err as { code?: string }).code === '42P01') return [];
      throw err;
    }
  }

  /** The companies each node holds a live lease of. */
  async owned(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const l of await this.leases())
      if (l.live && l.owner !== null) out.set(l.owner, [...(out.get(l.owner) ?? []), l.company]);
    return out;
  }

  async states(): Promise<Record<string, number>> {
    const rows = await this.query<{ state: string; n: string }>(
      'SELECT state, count(*) AS n FROM documents GROUP BY state ORDER BY state',
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  /** Documents `sending` of the given companies. */
  async sending(companies: readonly string[]): Promise<number> {
    if (companies.length === 0) return 0;
    const [row] = await this.query<{ n: string }>(
      "SELECT count(*) AS n FROM documents WHERE state = 'sending' AND company = ANY($1)",
      [companies],
    );
    return Number(row.n);
  }

  /**
   * Ends the server sessions behind the node process `pid`'s sockets (their client ports, found in /proc):
   * what `pg_terminate_backend` does to a node whose connections an operator or a failover cut.
   */
  async terminateBackendsOf(
    pid: number,
  ): Promise<{ backends: number; applicationNames: string[] }> {
    const ports = clientPortsOf(pid, this.db.server.port);
    if (ports.length === 0) return { backends: 0, applicationNames: [] };
    const rows = await this.query<{ application_name: string; done: boolean }>(
      'SELECT application_name, pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND datname = $2',
      [ports, this.db.name],
    );
    return {
      backends: rows.filter((r) => r.done).length,
      applicationNames: [...new Set(rows.map((r) => r.application_name))].sort(),
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}

/** The local ports of process `pid`'s TCP connections to `serverPort` on this machine (Linux /proc). */
export function clientPortsOf(pid: number, serverPort: number): number[] {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9])) continue;
      const local = parseInt(f[1].split(':')[1], 16);
      const remote = parseInt(f[2].split(':')[1], 16);
      if (remote === serverPort) ports.push(local);
    }
  }
  return ports;
}
