// A temporary project folder (configuration, inbox, outbox, state, logs) and the
// real daemon (`node bin/edoc-bridge.js run`) as a child process, with an
// incremental reader of its NDJSON log.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { COMPANY } from './emulator.mjs';
import { BIN, ROOT, procMemory, sleep } from './util.mjs';

export class Project {
  constructor(dir, options) {
    this.dir = dir;
    this.options = options;
    this.configFile = path.join(dir, 'edoc-bridge.yaml');
    this.stateDir = path.join(dir, 'state');
    this.logFile = path.join(dir, 'logs', 'edoc-bridge.log');
  }

  /** options: baseUrl, rate {requestsPerSecond, concurrency}, stableMs, stateDir */
  static async create(options) {
    const dir = await mkdtemp(path.join(options.tmp ?? os.tmpdir(), 'edoc-bench-'));
    const project = new Project(dir, options);
    if (options.stateDir) project.stateDir = options.stateDir;
    await writeFile(project.configFile, project.configText());
    await mkdir(project.inbox('invoice'), { recursive: true });
    return project;
  }

  configText() {
    const o = this.options;
    return stringify({
      service: { baseUrl: o.baseUrl, timeoutMs: 30_000 },
      companies: [
        {
          alias: COMPANY.alias,
          id: COMPANY.id,
          nit: COMPANY.nit,
          apiKey: COMPANY.apiKey,
          userId: COMPANY.userId,
          rate: o.rate,
        },
      ],
      paths: {
        inbox: path.join(this.dir, 'inbox'),
        outbox: path.join(this.dir, 'outbox'),
        state: this.stateDir,
        logs: path.join(this.dir, 'logs'),
      },
      kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 },
      watch: { stableMs: o.stableMs ?? 1000, usePolling: false },
      received: { enabled: false },
      log: { level: 'info' },
    });
  }

  inbox(kind) {
    return path.join(this.dir, 'inbox', kind);
  }

  resultPath(kind, name) {
    return path.join(this.dir, 'outbox', kind, `${name.replace(/\.[^.]*$/, '')}.result.json`);
  }

  async result(kind, name) {
    try {
      return JSON.parse(await readFile(this.resultPath(kind, name), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Writes `<name>.part` and renames it in (the way an ERP should); resolves with Date.now() of the rename. */
  async dropRenamed(kind, name, content) {
    const target = path.join(this.inbox(kind), name);
    await writeFile(`${target}.part`, content);
    const at = Date.now();
    await rename(`${target}.part`, target);
    return at;
  }

  /** Writes the file in place under its final name (taken once it stays unchanged for stableMs). */
  async dropInPlace(kind, name, content) {
    const target = path.join(this.inbox(kind), name);
    const at = Date.now();
    await writeFile(target, content);
    return at;
  }

  async remove() {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Reads new NDJSON lines from a growing file. */
class LogTail {
  constructor(file) {
    this.file = file;
    this.offset = 0;
    this.rest = '';
    this.lines = [];
  }

  poll() {
    let fd;
    try {
      if (statSync(this.file).size <= this.offset) return;
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(1 << 20);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        const text = this.rest + buf.subarray(0, n).toString('utf8');
        const parts = text.split('\n');
        this.rest = parts.pop();
        for (const p of parts) {
          if (p.trim() === '') continue;
          try {
            this.lines.push(JSON.parse(p));
          } catch {
            // not a JSON line
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  }
}

export class DaemonProcess {
  constructor(child, project, spawnedAt, logFrom) {
    this.child = child;
    this.project = project;
    this.spawnedAt = spawnedAt;
    this.tail = new LogTail(project.logFile);
    this.tail.offset = logFrom;
    this.stderr = '';
    this.peakHwmKb = 0;
    child.stderr.on('data', (c) => {
      this.stderr += c.toString();
    });
    child.stdout.resume();
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
  }

  /** `project`: anything with dir, configFile and logFile; `env`: variables added (a cluster node's name, PGPASSWORD). */
  static spawn(project, { nodeArgs = [], env = {} } = {}) {
    let logFrom = 0;
    try {
      logFrom = statSync(project.logFile).size;
    } catch {
      // no log yet
    }
    const spawnedAt = Date.now();
    const child = spawn(
      process.execPath,
      [...nodeArgs, BIN, 'run', '--config', project.configFile],
      {
        cwd: project.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: project.dir,
          LANG: 'C.UTF-8',
          TZ: 'UTC',
          ...env,
        },
      },
    );
    return new DaemonProcess(child, project, spawnedAt, logFrom);
  }

  static async start(project, options) {
    const d = DaemonProcess.spawn(project, options);
    await d.waitForLog((l) => l.msg === 'watching the inbox', 60_000);
    return d;
  }

  get pid() {
    return this.child.pid;
  }

  /** Peak resident set so far (VmHWM), remembered so it survives the process. */
  memory() {
    const m = procMemory(this.child.pid);
    if (m && m.hwmKb > this.peakHwmKb) this.peakHwmKb = m.hwmKb;
    return m;
  }

  lines() {
    this.tail.poll();
    return this.tail.lines;
  }

  async waitForLog(match, timeoutMs = 30_000, everyMs = 10) {
    const deadline = Date.now() + timeoutMs;
    let checked = 0;
    for (;;) {
      const lines = this.lines();
      for (; checked < lines.length; checked++) if (match(lines[checked])) return lines[checked];
      if (this.exit)
        throw new Error(`daemon exited ${JSON.stringify(this.exit)}: ${this.stderr.slice(-2000)}`);
      if (Date.now() > deadline) {
        throw new Error(
          `no matching log line within ${timeoutMs} ms; tail: ${lines
            .slice(-5)
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      }
      this.memory();
      await sleep(everyMs);
    }
  }

  async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
