/**
 * A configuration that cannot be used ends the same way at start and at reload, with the real CLI
 * as a child process: at start exit 2 (the systemd unit's RestartPreventExitStatus, so no restart
 * loop) with one line naming the file and EDOC_CONFIG_INVALID; at SIGHUP one error line while the
 * old configuration stays in force. Files that cannot be parsed (an alias bomb, an alias that
 * contains itself), and a service.baseUrl carrying a password, which is never shown.
 */
import { writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest } from '../helpers/daemon-fixture.js';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  type Project,
} from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const PASSWORD = 'proxy-pass-7f3a9c2e51';
const ALIAS_BOMB = `x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
x-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
x-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
x-e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]
`;
const SELF_ALIAS = 'x-loop: &loop\n  again: *loop\n';

/** The project's own (valid) configuration with `extra` YAML after it. */
const withExtra = (project: Project, extra: string): string => `${project.configText()}${extra}`;
/** The same with service.baseUrl carrying a user name and password. */
const withPassword = (project: Project): string =>
  project
    .configText()
    .replace(
      /baseUrl: (\S+)/,
      (_m, url: string) => `baseUrl: ${url.replace('http://', `http://edoc:${PASSWORD}@`)}`,
    );

describe('at start: exit 2, one line naming the file and EDOC_CONFIG_INVALID', () => {
  for (const [name, make, says] of [
    ['an alias bomb', (p: Project) => withExtra(p, ALIAS_BOMB), 'aliases expand to too much data'],
    [
      'an alias that contains itself',
      (p: Project) => withExtra(p, SELF_ALIAS),
      'x-loop.again: an alias refers to a node that contains it',
    ],
    [
      'service.baseUrl with a password',
      withPassword,
      'service.baseUrl: must not carry a user name or password',
    ],
  ] as const) {
    daemonTest(`${name}: exit 2 at start`, async ({ daemonProject }) => {
      const { project, spawnDaemon } = await daemonProject({});
      const text = make(project);
      if (name.includes('password')) expect(text).toContain(PASSWORD);
      await writeFile(project.configFile, text);
      const daemon = spawnDaemon();
      expect((await daemon.exited).code).toBe(2);
      const lines = daemon.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(project.configFile);
      expect(lines[0]).toContain(says);
      expect(lines[0]).toContain('[EDOC_CONFIG_INVALID]');
      expect(daemon.stderr).not.toContain(PASSWORD);
    });
  }
});

describe('at SIGHUP: one error line, the old configuration in force', () => {
  async function refusedAndStillWorking(
    daemon: DaemonProcess,
    project: Project,
    says: string,
  ): Promise<void> {
    daemon.signal('SIGHUP');
    const refused = await daemon.waitForLog(
      (l) => l.level === 'error' && /configuration refused/.test(l.msg),
    );
    expect(refused.code).toBe('EDOC_CONFIG_INVALID');
    expect(JSON.stringify(refused.err)).toContain(says);
    expect(JSON.stringify(refused.err)).toContain(project.configFile);
    expect(daemon.running).toBe(true);
    expect(daemon.logLines().filter((l) => l.level === 'error')).toHaveLength(1);
  }

  for (const [name, make, says] of [
    ['an alias bomb', (p: Project) => withExtra(p, ALIAS_BOMB), 'aliases expand to too much data'],
    [
      'an alias that contains itself',
      (p: Project) => withExtra(p, SELF_ALIAS),
      'an alias refers to a node that contains it',
    ],
  ] as const) {
    daemonTest(`${name}: refused at SIGHUP, the daemon goes on`, async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({});
      const daemon = await startDaemon();
      await writeFile(project.configFile, make(project));
      await refusedAndStillWorking(daemon, project, says);
      await project.drop('invoice', 'after.jsonl', jsonlText([invoice(990_410_001)]));
      expect((await project.finalResult('invoice', 'after.jsonl')).counts).toMatchObject({
        total: 1,
        accepted: 1,
      });
    });
  }

  daemonTest(
    'service.baseUrl with a password: refused, the password in no log line',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({});
      const daemon = await startDaemon();
      await writeFile(project.configFile, withPassword(project));
      await refusedAndStillWorking(
        daemon,
        project,
        'service.baseUrl: must not carry a user name or password',
      );
      expect(JSON.stringify(daemon.logLines())).not.toContain(PASSWORD);
      expect(JSON.stringify(daemon.logLines())).not.toContain(COMPANY_MAIN.apiKey);
    },
  );
});
