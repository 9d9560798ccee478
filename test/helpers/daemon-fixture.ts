/**
 * `daemonTest`: the vitest fixture (`test.extend`) for "a daemon project". A
 * test asks for a temp project folder (configuration, inbox/outbox/state), an
 * emulator on a free port seeded with its companies, and the daemon and CLI
 * bound to that project; everything it started is cleaned up after it, passed
 * or failed: child processes stopped (SIGKILL when they hang), emulators
 * closed, folders removed, each step run even if an earlier one failed.
 *
 *   daemonTest('…', async ({ daemonProject }) => {
 *     const { project, emulator, startDaemon, cli } = await daemonProject({ faults: { errorRate: 1 } });
 *   });
 *
 * or the lazy fixtures `project`, `emulator`, `startDaemon` and `cli` (options by
 * `daemonTest.override({ projectOptions: … })`). A file whose tests share one
 * running daemon takes `fileResources()` in its `beforeAll`. The CLI is built once per file
 * with `beforeAll(buildCli, BUILD_TIMEOUT_MS)` (a build can outlast a test's timeout).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, test } from 'vitest';
import { runCli, spawnCli, type CliOptions, type CliRun } from './cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  createProject,
  DaemonProcess,
  type Project,
  type ProjectOptions,
  startTestEmulator,
  type TestCompany,
  type TestEmulator,
  type TestEmulatorOptions,
  type TestSeed,
} from './daemon-harness.js';
import type { FaultSet } from './emulator-client.js';

/** How long `beforeAll(buildCli, …)` may take on a loaded machine. */
export const BUILD_TIMEOUT_MS = 240_000;

export interface DaemonProjectOptions extends Partial<Omit<ProjectOptions, 'companies'>> {
  /** The companies of the configuration, seeded in the emulator. @defaultValue [COMPANY_MAIN] */
  companies?: readonly TestCompany[];
  /** The emulator's faults from the start. @defaultValue none */
  faults?: FaultSet;
  /** A service URL other than the emulator's (a port nothing listens on). @defaultValue the emulator's */
  baseUrl?: string;
  /** The companies the emulator knows when not the configuration's (one added to the configuration later). @defaultValue companies */
  seed?: readonly TestCompany[];
  /** A fixed port, a state file, a pinned "today" for the new emulator. */
  emulatorOptions?: TestEmulatorOptions;
  /** An emulator already running (a second project against the same service); a new one when absent. */
  emulator?: TestEmulator;
}

export interface DaemonProject {
  project: Project;
  emulator: TestEmulator;
  /** Spawns the daemon on this project and waits until it watches the inbox. */
  startDaemon(timeoutMs?: number): Promise<DaemonProcess>;
  /** Spawns the daemon without waiting (for start-up failures). */
  spawnDaemon(): DaemonProcess;
  /** A one-shot command against this project's configuration. */
  cli(args: readonly string[], options?: Omit<CliOptions, 'signal'>): Promise<CliRun>;
  /** A command left running (to signal it); stopped after the test if still alive. */
  spawnCli(args: readonly string[]): { process: ChildProcess; done: Promise<CliRun> };
}

/** Everything one test started, closed in reverse order. */
export class TestResources {
  private readonly cleanups: (() => Promise<unknown>)[] = [];
  /** Aborted first at clean-up: kills the one-shot commands a failed or timed-out test left running. */
  readonly commands = new AbortController();

  /** Runs `cleanup` after the test (last registered, first run). */
  defer(cleanup: () => Promise<unknown>): void {
    this.cleanups.push(cleanup);
  }

  /** An emulator seeded with `seed` (companies, a seed object or a seed file), closed after the test. */
  async emulator(
    seed: TestSeed = [COMPANY_MAIN],
    faults: FaultSet = {},
    options: TestEmulatorOptions = {},
  ): Promise<TestEmulator> {
    const emulator = await startTestEmulator(seed, faults, options);
    this.defer(() => emulator.close());
    return emulator;
  }

  /** An empty temp folder, removed after the test. */
  async tempDir(prefix = 'edoc-test-'): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    this.defer(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
    return dir;
  }

  async project(options: ProjectOptions): Promise<Project> {
    const project = await createProject(options);
    this.defer(() => project.remove());
    return project;
  }

  spawnDaemon(project: Project): DaemonProcess {
    const daemon = DaemonProcess.spawn(project);
    this.defer(() => {
      daemon.signal('SIGCONT'); // a test may have left it frozen (SIGSTOP)
      return daemon.stop(5_000);
    });
    return daemon;
  }

  async startDaemon(project: Project, timeoutMs = 15_000): Promise<DaemonProcess> {
    const daemon = this.spawnDaemon(project);
    await daemon.waitForLog((l) => l.msg === 'watching the inbox', timeoutMs);
    return daemon;
  }

  spawnCli(
    project: Project,
    args: readonly string[],
  ): { process: ChildProcess; done: Promise<CliRun> } {
    const run = spawnCli(project, args);
    this.defer(async () => {
      if (run.process.exitCode === null && run.process.signalCode === null)
        run.process.kill('SIGKILL');
      await run.done;
    });
    return run;
  }

  /** A one-shot command, killed at clean-up if still running. */
  runCli(
    project: Project,
    args: readonly string[],
    options: Omit<CliOptions, 'signal'> = {},
  ): Promise<CliRun> {
    return runCli(project, args, { ...options, signal: this.commands.signal });
  }

  /** A project with its own emulator (or `options.emulator`), its daemon and CLI bound to it. */
  async daemonProject(options: DaemonProjectOptions = {}): Promise<DaemonProject> {
    const {
      companies = [COMPANY_MAIN],
      faults = {},
      seed = companies,
      emulatorOptions,
      emulator: shared,
      ...rest
    } = options;
    const emulator = shared ?? (await this.emulator(seed, faults, emulatorOptions));
    const project = await this.project({ baseUrl: emulator.url, ...rest, companies });
    return {
      project,
      emulator,
      startDaemon: (timeoutMs) => this.startDaemon(project, timeoutMs),
      spawnDaemon: () => this.spawnDaemon(project),
      cli: (args, cliOptions) => this.runCli(project, args, cliOptions),
      spawnCli: (args) => this.spawnCli(project, args),
    };
  }

  /**
   * What most files whose tests share one daemon do in their `beforeAll`: the CLI built, a project with
   * its own emulator made, and its daemon started (watching the inbox).
   */
  async runningDaemon(
    options: DaemonProjectOptions = {},
  ): Promise<DaemonProject & { daemon: DaemonProcess }> {
    await buildCli();
    const made = await this.daemonProject(options);
    return { ...made, daemon: await this.startDaemon(made.project) };
  }

  /** Every cleanup, newest first, each even if an earlier one failed; the first failure is rethrown. */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    this.commands.abort();
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/**
 * The same resources for a file whose tests share one project and daemon (set up in its
 * `beforeAll`): everything started through them is cleaned up after the file's last test.
 */
export function fileResources(): TestResources {
  const resources = new TestResources();
  afterAll(() => resources.close());
  return resources;
}

export interface DaemonFixtures {
  /** The options of the lazy `project`/`emulator` fixtures. @defaultValue {} (COMPANY_MAIN, no faults) */
  projectOptions: DaemonProjectOptions;
  /** What this test started; closed after it. */
  resources: TestResources;
  /** Makes a project (and its emulator unless given one); as many as the test needs. */
  daemonProject: (options?: DaemonProjectOptions) => Promise<DaemonProject>;
  /** The test's project set-up (from `projectOptions`), made on first use. */
  setup: DaemonProject;
  project: Project;
  emulator: TestEmulator;
  startDaemon: DaemonProject['startDaemon'];
  cli: DaemonProject['cli'];
}

export const daemonTest = test.extend<DaemonFixtures>({
  projectOptions: {},
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  resources: async ({}, use) => {
    const resources = new TestResources();
    try {
      await use(resources);
    } finally {
      await resources.close();
    }
  },
  daemonProject: async ({ resources }, use) => use((options) => resources.daemonProject(options)),
  setup: async ({ resources, projectOptions }, use) =>
    use(await resources.daemonProject(projectOptions)),
  project: async ({ setup }, use) => use(setup.project),
  emulator: async ({ setup }, use) => use(setup.emulator),
  startDaemon: async ({ setup }, use) => use(setup.startDaemon),
  cli: async ({ setup }, use) => use(setup.cli),
});
