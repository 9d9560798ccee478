/**
 * Where the configuration's folders are, as a service started elsewhere sees them: relative paths resolve
 * against the configuration file's folder (not the working directory), and a folder the process cannot
 * write is refused at start (exit 2, EDOC_CONFIG_NOT_WRITABLE naming the file and the key), before any
 * document is taken. The real CLI as a child process.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const ROOT = path.resolve(import.meta.dirname, '../..');
const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function temp(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

describe('relative paths in the configuration', () => {
  test('the shipped configuration copied into etc/ and used from another working directory: its folders are beside etc/, not in the working directory', async () => {
    const install = await temp('edoc-install-');
    const elsewhere = await temp('edoc-cwd-');
    await mkdir(path.join(install, 'etc', 'mappings'), { recursive: true });
    await writeFile(
      path.join(install, 'etc', 'edoc-bridge.yaml'),
      await readFile(path.join(ROOT, 'config/edoc-bridge.yaml')),
    );
    await writeFile(
      path.join(install, 'etc', 'emulator-seed.json'),
      await readFile(path.join(ROOT, 'config/emulator-seed.json')),
    );
    for (const name of ['sales', 'support-document', 'payroll', 'support-adjustment', 'pos']) {
      await writeFile(
        path.join(install, 'etc', 'mappings', `${name}.csv.yaml`),
        await readFile(path.join(ROOT, `config/mappings/${name}.csv.yaml`)),
      );
    }
    const run = await runCli(
      { dir: elsewhere, configFile: path.join(install, 'etc', 'edoc-bridge.yaml') },
      ['status', '--json'],
    );
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { stateDir: string }).stateDir).toBe(
      path.join(install, 'state'),
    );
  });
});

/** The one line a daemon refused at start wrote on stderr, once it exited 2. */
async function oneLineRefusal(daemon: {
  exited: Promise<{ code: number | null }>;
  stderr: string;
}): Promise<string> {
  expect((await daemon.exited).code).toBe(2);
  const lines = daemon.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

describe('a folder the process cannot write', () => {
  for (const key of ['state', 'outbox'] as const) {
    test(`paths.${key} under a regular file: run exits 2 at start naming the file and paths.${key}; nothing is taken`, async ({
      daemonProject,
    }) => {
      const { project, spawnDaemon } = await daemonProject({});
      const blocker = path.join(project.dir, 'not-a-folder');
      await writeFile(blocker, 'a file where a folder should be\n');
      const text = project
        .configText()
        .replace(new RegExp(`^(  ${key}: ).*$`, 'm'), `$1${blocker}/${key}`);
      expect(text).toContain(`${key}: ${blocker}/${key}`);
      await writeFile(project.configFile, text);
      await project.drop('invoice', 'a.json', '[]');
      const line = await oneLineRefusal(spawnDaemon());
      expect(line).toContain(
        `${project.configFile}: paths.${key}: this process cannot write ${blocker}/${key} (`,
      );
      expect(line).toContain('[EDOC_CONFIG_NOT_WRITABLE]');
      await expect(readFile(path.join(project.inbox('invoice'), 'a.json'), 'utf8')).resolves.toBe(
        '[]',
      );
    });
  }

  test("a file in the place of a kind's inbox folder: run exits 2 at start naming that folder; the other kinds' files stay", async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    const folder = project.inbox('credit-note');
    await mkdir(path.dirname(folder), { recursive: true });
    await writeFile(folder, 'a file where the folder should be\n');
    await project.drop('invoice', 'a.json', '[]');
    const line = await oneLineRefusal(spawnDaemon());
    expect(line).toContain(
      `paths.inbox: the inbox folder ${folder} cannot be made (a file is in its place)`,
    );
    expect(line).toContain('[EDOC_CONFIG_NOT_WRITABLE]');
    await expect(readFile(path.join(project.inbox('invoice'), 'a.json'), 'utf8')).resolves.toBe(
      '[]',
    );
  });

  test('a file in the place of paths.inbox itself: the line names that file, not the kind folder under it', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    const inbox = path.join(project.dir, 'inbox');
    await writeFile(inbox, 'a file where the inbox should be\n');
    const line = await oneLineRefusal(spawnDaemon());
    expect(line).toContain(`cannot be made (${inbox} is a file, not a folder)`);
    expect(line).toContain('[EDOC_CONFIG_NOT_WRITABLE]');
  });

  test("a symbolic link to nothing in the place of a kind's folder: the line says so (not a bare ENOENT); the state folder is left unlocked", async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon, startDaemon } = await daemonProject({});
    const folder = project.inbox('credit-note');
    await mkdir(path.dirname(folder), { recursive: true });
    await symlink(path.join(project.dir, 'gone'), folder);
    const line = await oneLineRefusal(spawnDaemon());
    expect(line).toContain(
      `the inbox folder ${folder} cannot be made (a symbolic link to nothing is in its place)`,
    );
    expect(await readdir(project.stateDir)).not.toContain('edoc-bridge.lock');
    await mkdir(path.join(project.dir, 'gone'));
    await startDaemon();
  });
});

describe('a read-only file system', () => {
  test('paths.state and an inbox folder on a read-only mount: each line says EROFS (not the ENOENT of a recursive mkdir)', async ({
    daemonProject,
    skip,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    const readOnly = path.join(project.dir, 'read-only');
    await mkdir(readOnly);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro', 'tmpfs', readOnly], { stdio: 'ignore' });
    } catch {
      skip('no right to mount a read-only tmpfs here');
    }
    try {
      const original = project.configText();
      await writeFile(
        project.configFile,
        original.replace(/^( {2}state: ).*$/m, `$1${readOnly}/state`),
      );
      let daemon = spawnDaemon();
      expect((await daemon.exited).code).toBe(2);
      expect(daemon.stderr).toContain(
        `paths.state: this process cannot write ${readOnly}/state (EROFS)`,
      );
      await project.writeConfig({ ...project.options, inboxRoot: path.join(readOnly, 'inbox') });
      daemon = spawnDaemon();
      expect((await daemon.exited).code).toBe(2);
      expect(daemon.stderr).toContain(
        `the inbox folder ${path.join(readOnly, 'inbox', 'invoice')} cannot be made (EROFS)`,
      );
    } finally {
      execFileSync('umount', [readOnly]);
    }
  });
});
