/**
 * The daemon's own folders are not watched inbox folders: paths.outbox equal to paths.inbox (however it is
 * written: `..`, a symbolic link) or paths.state set to a kind's inbox folder would have the daemon read its
 * own results, reports, ledger and lock as new files. Refused at start (exit 2, one line naming the keys)
 * and on reload (the old configuration stays in force). The real CLI as a child process.
 */
import { mkdir, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe('the outbox or the state folder in the place of a watched inbox folder', () => {
  test('paths.inbox written as the outbox through "..": run exits 2 with one line naming paths.outbox; the next start with its own inbox takes the file that waited', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon, startDaemon } = await daemonProject({});
    const outbox = path.join(project.dir, 'outbox');
    await project.writeConfig({
      ...project.options,
      inboxRoot: path.join(project.dir, 'outbox', '..', 'outbox'),
    });
    const dropped = path.join(outbox, 'invoice', 'waits.json');
    await mkdir(path.dirname(dropped), { recursive: true });
    await writeFile(dropped, jsonText(invoice(990_000_001)));
    const daemon = spawnDaemon();
    expect((await daemon.exited).code).toBe(2);
    const lines = daemon.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `${project.configFile}: paths.outbox: ${path.join(outbox, 'invoice')} is also the inbox folder of main/invoice`,
    );
    expect(lines[0]).toContain('[EDOC_CONFIG_INVALID]');
    expect(await readdir(path.join(outbox, 'invoice'))).toEqual(['waits.json']);
    await expect(readdir(project.stateDir)).resolves.not.toContain('edoc-bridge.lock');

    // the operator gives the inbox its own folder and moves the file there
    await project.writeConfig({ ...project.options, inboxRoot: undefined });
    await mkdir(project.inbox('invoice'), { recursive: true });
    await rename(dropped, path.join(project.inbox('invoice'), 'waits.json'));
    await startDaemon();
    expect((await project.finalResult('invoice', 'waits.json')).counts.accepted).toBe(1);
  }, 60_000);

  test('paths.inbox a symbolic link to paths.outbox: run exits 2 naming paths.outbox', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    const link = path.join(project.dir, 'inbox-link');
    await symlink(path.join(project.dir, 'outbox'), link);
    await project.writeConfig({ ...project.options, inboxRoot: link });
    const daemon = spawnDaemon();
    expect((await daemon.exited).code).toBe(2);
    expect(daemon.stderr.trim().split('\n')).toHaveLength(1);
    expect(daemon.stderr).toContain(`paths.outbox: ${path.join(project.dir, 'outbox', 'invoice')}`);
    expect(daemon.stderr).toContain('[EDOC_CONFIG_INVALID]');
  }, 60_000);

  test('paths.state set to the invoice inbox folder: run exits 2 naming paths.state; no ledger or lock is made there', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    const folder = project.inbox('invoice');
    const text = project.configText().replace(/^( {2}state: ).*$/m, `$1${folder}`);
    expect(text).toContain(`state: ${folder}`);
    await writeFile(project.configFile, text);
    const daemon = spawnDaemon();
    expect((await daemon.exited).code).toBe(2);
    expect(daemon.stderr.trim().split('\n')).toHaveLength(1);
    expect(daemon.stderr).toContain(
      `paths.state: ${folder} is also the inbox folder of main/invoice`,
    );
    expect(await readdir(folder)).toEqual([]);
  }, 60_000);

  test('a reload that sets paths.inbox to paths.outbox is refused: the old inbox is still watched and the outbox holds only its reports', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({});
    const daemon = await startDaemon();
    const options = project.options;
    await project.writeConfig({ ...options, inboxRoot: path.join(project.dir, 'outbox') });
    const refused = await daemon.reload();
    expect(refused.msg).toBe('new configuration refused; the old one stays in force');
    expect(refused.code).toBe('EDOC_CONFIG_INVALID');
    project.options = options;
    await project.drop('invoice', 'after.json', jsonText(invoice(990_000_001)));
    expect((await project.finalResult('invoice', 'after.json')).counts.accepted).toBe(1);
    // its report only, none of a report read as a new file (hidden temporary files and archive/ aside)
    const written = await readdir(project.outbox('invoice'));
    expect(written.filter((n) => !n.startsWith('.') && n !== 'archive')).toEqual([
      'after.result.json',
    ]);
    expect(daemon.running).toBe(true);
  }, 60_000);

  test("a kind's inbox folder a symbolic link to another kind's: run exits 2 naming both, instead of reading invoices as credit notes", async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({});
    await mkdir(project.inbox('invoice'), { recursive: true });
    await symlink(project.inbox('invoice'), project.inbox('credit-note'));
    const daemon = spawnDaemon();
    expect((await daemon.exited).code).toBe(2);
    expect(daemon.stderr.trim().split('\n')).toHaveLength(1);
    expect(daemon.stderr).toContain(
      `paths.inbox: the inbox folders of main/invoice and main/credit-note are one folder (${project.inbox('invoice')})`,
    );
    expect(daemon.stderr).toContain('[EDOC_CONFIG_INVALID]');
  }, 60_000);
});
