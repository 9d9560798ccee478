/**
 * The real daemon (`node bin/edoc-bridge.js run`) as a child process against an
 * emulator the test starts in-process with its own seed: a temp project folder
 * with a small configuration, drops into the inbox, waits on the NDJSON log and
 * on the outbox, signals, and a read-only look at the ledger.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import type { TestCompany } from './test-emulator.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin/edoc-bridge.js');
const MAIN = path.join(ROOT, 'dist/cli/main.js');
// One build at a time across test files (test/fixtures/cli/harness.ts re-exports buildCli).
const BUILD_LOCK = path.join(ROOT, 'dist/.cli-test-build.lock');

/** The environment of every CLI child process: nothing inherited but PATH, a home in the project, UTC. */
export function childEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: dir, LANG: 'C.UTF-8', TZ: 'UTC', ...extra };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, (await stat(full)).mtimeMs);
  }
  return newest;
}

/** `npm run build` unless dist is newer than every source file; one build at a time across test files. */
export async function buildCli(): Promise<void> {
  await mkdir(path.dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      await mkdir(BUILD_LOCK);
      break;
    } catch {
      const age = existsSync(BUILD_LOCK) ? Date.now() - statSync(BUILD_LOCK).mtimeMs : 0;
      if (age > 240_000) await rm(BUILD_LOCK, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    const built = existsSync(MAIN) ? statSync(MAIN).mtimeMs : 0;
    if (built < (await newestSource(path.join(ROOT, 'src')))) {
      await new Promise<void>((resolve) => {
        // tsc still emits when another stage is mid-edit; main.js is checked below.
        const child = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
        child.on('exit', () => resolve());
        child.on('error', () => resolve());
      });
    }
  } finally {
    await rm(BUILD_LOCK, { recursive: true, force: true });
  }
  if (!existsSync(MAIN)) throw new Error('npm run build did not produce dist/cli/main.js');
}

// --- companies and the emulator (test-emulator.ts) ---------------------------

export {
  COMPANY_MAIN,
  COMPANY_OTHER,
  runCompany,
  seedFile,
  seedFor,
  startTestEmulator,
  type TestCompany,
  type TestEmulator,
  type TestEmulatorOptions,
  type TestSeed,
} from './test-emulator.js';

// --- the project folder -------------------------------------------------------

export interface ProjectOptions {
  baseUrl: string;
  companies: readonly TestCompany[];
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  stableMs?: number;
  timeoutMs?: number;
  /** Replaces a company's key in the configuration (a wrong key for the 401 test). */
  apiKeys?: Record<string, string>;
  /** paths.inbox instead of `<dir>/inbox`. */
  inboxRoot?: string;
  /** The `kinds` section (mappings for delimited files, POS endpoint). */
  kinds?: Record<string, Record<string, unknown>>;
  /** More `watch` keys (doneMarker, usePolling). */
  watch?: Record<string, unknown>;
  /** The `http` section (the operator listener); none when absent. */
  http?: Record<string, unknown>;
  /** The `alerts` section (webhook, thresholds). */
  alerts?: Record<string, unknown>;
  /** `received` keys over the default `{ enabled: false }`. */
  received?: Record<string, unknown>;
  /** The `ledger` section (`url`: the PostgreSQL ledger); none (SQLite in paths.state) when absent. */
  ledger?: Record<string, unknown>;
  /** The `read` section (stuckAfter, maxRecordBytes). */
  read?: Record<string, unknown>;
}

export class Project {
  readonly configFile: string;
  readonly stateDir: string;
  readonly logFile: string;

  /** `layout`: another state folder and log file (a cluster node's, beside the others in one project folder). */
  constructor(
    readonly dir: string,
    public options: ProjectOptions,
    layout: { stateDir?: string; logFile?: string } = {},
  ) {
    this.configFile = path.join(dir, 'edoc-bridge.yaml');
    this.stateDir = layout.stateDir ?? path.join(dir, 'state');
    this.logFile = layout.logFile ?? path.join(dir, 'logs', 'edoc-bridge.log');
  }

  private root(base: string, company?: string): string {
    if (this.options.companies.length === 1) return path.join(this.dir, base);
    return path.join(this.dir, base, company ?? this.options.companies[0].alias);
  }

  inbox(kind: string, company?: string): string {
    return path.join(this.root('inbox', company), kind);
  }

  outbox(kind: string, company?: string): string {
    return path.join(this.root('outbox', company), kind);
  }

  /** The configuration as YAML (every path absolute). */
  configText(options: ProjectOptions = this.options): string {
    const config = {
      service: { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs ?? 5_000 },
      companies: options.companies.map((c) => ({
        alias: c.alias,
        id: c.id,
        nit: c.nit,
        apiKey: options.apiKeys?.[c.alias] ?? c.apiKey,
        userId: c.userId,
        rate: c.rate ?? { requestsPerSecond: 50, concurrency: 4 },
      })),
      paths: {
        inbox: options.inboxRoot ?? path.join(this.dir, 'inbox'),
        outbox: path.join(this.dir, 'outbox'),
        state: this.stateDir,
        logs: path.join(this.dir, 'logs'),
      },
      ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
      retry: { maxAttempts: 8, baseDelayMs: 20, maxDelayMs: 200, ...options.retry },
      watch: { stableMs: options.stableMs ?? 200, usePolling: false, ...options.watch },
      received: { enabled: false, ...options.received },
      ...(options.alerts === undefined ? {} : { alerts: options.alerts }),
      log: { level: 'info' },
      emulator: { seed: path.join(ROOT, 'config/emulator-seed.json') },
      ...(options.http === undefined ? {} : { http: options.http }),
      ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
      ...(options.read === undefined ? {} : { read: options.read }),
    };
    return stringify(config);
  }

  async writeConfig(options: ProjectOptions = this.options): Promise<void> {
    this.options = options;
    await writeFile(this.configFile, this.configText(options));
  }

  /** Writes `name` into the kind's inbox the way an ERP should: a `.part` file renamed when complete. */
  async drop(
    kind: string,
    name: string,
    content: string | Buffer,
    company?: string,
  ): Promise<string> {
    const dir = this.inbox(kind, company);
    await mkdir(dir, { recursive: true });
    const target = path.join(dir, name);
    await writeFile(`${target}.part`, content);
    await rename(`${target}.part`, target);
    return target;
  }

  /** Writes `name` into the project's `exports/` folder (not the inbox, for `submit`) and returns its path. */
  async exportFile(name: string, content: string | Buffer): Promise<string> {
    const dir = path.join(this.dir, 'exports');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, name);
    await writeFile(file, content);
    return file;
  }

  resultPath(kind: string, name: string, company?: string): string {
    return path.join(this.outbox(kind, company), `${stem(name)}.result.json`);
  }

  async result(kind: string, name: string, company?: string): Promise<ResultJson | undefined> {
    try {
      return JSON.parse(await readFile(this.resultPath(kind, name, company), 'utf8')) as ResultJson;
    } catch {
      return undefined;
    }
  }

  /** Waits for the final NAME.result.json (finishedAt set). */
  async finalResult(
    kind: string,
    name: string,
    options: { company?: string; timeoutMs?: number } = {},
  ): Promise<ResultJson> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const r = await this.result(kind, name, options.company);
      if (r !== undefined && r.finishedAt !== null) return r;
      if (Date.now() > deadline) {
        throw new Error(
          `no final ${this.resultPath(kind, name, options.company)} after ${options.timeoutMs ?? 20_000} ms; ` +
            `last: ${JSON.stringify(r?.counts)}\nlog tail:\n${this.logLines()
              .slice(-15)
              .map((l) => JSON.stringify(l))
              .join('\n')}`,
        );
      }
      await sleep(100);
    }
  }

  /** Every NDJSON line of the log so far (from all runs). */
  logLines(): LogLine[] {
    let text: string;
    try {
      text = readFileSync(this.logFile, 'utf8');
    } catch {
      return [];
    }
    const out: LogLine[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line) as LogLine);
      } catch {
        // a line being written right now
      }
    }
    return out;
  }

  /** Waits for a log line matching `match`, counting only lines after index `since`. */
  async waitForLog(
    match: (line: LogLine) => boolean,
    options: { since?: number; timeoutMs?: number } = {},
  ): Promise<LogLine> {
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    for (;;) {
      const found = this.logLines()
        .slice(options.since ?? 0)
        .find(match);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(
          `no matching log line after ${options.timeoutMs ?? 15_000} ms; tail:\n` +
            this.logLines()
              .slice(-15)
              .map((l) => JSON.stringify(l))
              .join('\n'),
        );
      }
      await sleep(50);
    }
  }

  /** Document counts per ledger state, read-only beside a running daemon. */
  ledgerStates(): Record<string, number> {
    const db = new Database(path.join(this.stateDir, 'ledger.sqlite'), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      const rows = db
        .prepare('SELECT state, count(*) AS n FROM documents GROUP BY state')
        .all() as { state: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    } finally {
      db.close();
    }
  }

  /** A read-only query on the ledger beside a running daemon. */
  ledgerQuery<T>(sql: string, ...params: unknown[]): T[] {
    const db = new Database(path.join(this.stateDir, 'ledger.sqlite'), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  async remove(): Promise<void> {
    // retries: a child process killed a moment ago may still be closing files in it
    await rm(this.dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

export function stem(name: string): string {
  const ext = path.extname(name);
  return ext === '' ? name : name.slice(0, -ext.length);
}

export async function createProject(options: ProjectOptions): Promise<Project> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-daemon-'));
  const project = new Project(dir, options);
  await project.writeConfig();
  return project;
}

export interface LogLine {
  level: string | number;
  msg: string;
  code?: string;
  [key: string]: unknown;
}

export interface ResultDocumentJson {
  index: number;
  source: { lines?: number[]; rows?: number[] };
  key: string | null;
  status: string;
  resultCode: string | null;
  httpStatus: number | null;
  errors: { code?: string; field?: string; rows?: number[]; message: string }[];
  warnings: string[];
  response: unknown;
  /** Only for `in-doubt`: why (`no-answer`, `repeated-number`). */
  doubt?: string;
  /** What was issued; null unless accepted. */
  issued?: Record<string, unknown> | null;
}

export interface ResultJson {
  file: string;
  kind: string;
  company: string;
  sha256: string;
  startedAt: string;
  finishedAt: string | null;
  error?: { code: string; message: string };
  counts: {
    total: number;
    accepted: number;
    rejected: number;
    invalid: number;
    failed: number;
    duplicate: number;
    inDoubt: number;
  };
  documents: ResultDocumentJson[];
}

// --- the daemon process -----------------------------------------------------------

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class DaemonProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private exit: Exit | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly project: Project,
    readonly logStart: number,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Spawns the daemon (`env`: variables added to childEnv's, e.g. a cluster node's name); does not wait for it (see `started`). */
  static spawn(project: Project, env: Record<string, string> = {}): DaemonProcess {
    const logStart = project.logLines().length;
    const child = spawn(process.execPath, [BIN, 'run', '--config', project.configFile], {
      cwd: project.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(project.dir, env),
    });
    return new DaemonProcess(child, project, logStart);
  }

  /** Spawns the daemon and waits until it watches the inbox. */
  static async start(
    project: Project,
    timeoutMs = 15_000,
    env: Record<string, string> = {},
  ): Promise<DaemonProcess> {
    const daemon = DaemonProcess.spawn(project, env);
    await daemon.waitForLog((l) => l.msg === 'watching the inbox', timeoutMs);
    return daemon;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** This run's log lines. */
  logLines(): LogLine[] {
    return this.project.logLines().slice(this.logStart);
  }

  async waitForLog(match: (line: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    const died = this.exited.then((e) => {
      throw new Error(
        `the daemon exited (${JSON.stringify(e)}) while waiting for a log line; stderr: ${this.stderr}`,
      );
    });
    return Promise.race([
      this.project.waitForLog(match, { since: this.logStart, timeoutMs }),
      died,
    ]);
  }

  /** SIGHUP, then the reload's outcome: 'configuration reloaded' or the refusal line. */
  async reload(timeoutMs = 15_000): Promise<LogLine> {
    const since = this.project.logLines().length;
    this.signal('SIGHUP');
    return this.project.waitForLog(
      (l) =>
        l.msg === 'configuration reloaded' ||
        l.msg === 'new configuration refused; the old one stays in force',
      { since, timeoutMs },
    );
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL: the crash. */
  async kill(): Promise<Exit> {
    this.signal('SIGKILL');
    return this.exited;
  }

  /** SIGTERM and wait; SIGKILL when it does not exit within `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<Exit> {
    if (!this.running) return this.exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
