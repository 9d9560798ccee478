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
import { createProject, DaemonProcess, Project, type ProjectOptions, type TestCompany } from './daemon-harness.js';

/** A test company `c<i>` with a valid NIT and its own key. */
export function clusterCompany(i: number, rate = { requestsPerSecond: 40, concurrency: 4 }): TestCompany {
  const nit = String(900_100_000 + i * 7);
  return { alias: `c${i}`, id: 2_000 + i, nit, checkDigit: nitCheckDigit(nit), apiKey: `test-key-c${i}`, userId: 10 + i, rate };
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
}

export class ClusterProject {
  private readonly nodes = new Map<string, Project>();

  private constructor(readonly shared: Project, readonly options: ClusterProjectOptions) {}

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
    const config = parse(node.configText()) as { paths: Record<string, string>; companies: { alias: string }[]; [key: string]: unknown };
    const { companies, ...own } = cluster;
    if (companies !== undefined) config.companies = config.companies.filter((c) => companies.includes(c.alias));
    config.paths.outbox = path.join(this.shared.dir, 'outbox');
    config.ledger = { url: this.options.url };
    config.cluster = { node: name, leaseMs: this.options.leaseMs, ...own };
    // the embedded emulator is never used here; the state folder of each node stays its own
    await writeFile(node.configFile, stringify(config));
    this.nodes.set(name, node);
    return node;
  }

  /** Spawns the node and waits until it watches the inbox. */
  async start(name: string, timeoutMs = 30_000, cluster: NodeOverrides = {}): Promise<DaemonProcess> {
    return DaemonProcess.start(await this.node(name, cluster), timeoutMs);
  }

  spawn(name: string, cluster: NodeOverrides = {}): Promise<DaemonProcess> {
    return this.node(name, cluster).then((node) => DaemonProcess.spawn(node));
  }

  drop(kind: string, name: string, content: string, company: string): Promise<string> {
    return this.shared.drop(kind, name, content, company);
  }

  finalResult(kind: string, name: string, company: string, timeoutMs = 60_000): ReturnType<Project['finalResult']> {
    return this.shared.finalResult(kind, name, { company, timeoutMs });
  }

  remove(): Promise<void> {
    return this.shared.remove();
  }
}
