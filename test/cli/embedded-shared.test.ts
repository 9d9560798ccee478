/**
 * `service.baseUrl: embedded` with `emulator.state`: the daemon's emulator owns
 * the state file. A command run beside the daemon (`ranges create`) must reach
 * that same emulator, or what it registered is overwritten by the daemon's next
 * save. Real daemon and CLI as child processes.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  createProject,
  DaemonProcess,
  type Project,
} from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

const projects: Project[] = [];
let daemon: DaemonProcess | undefined;

beforeAll(async () => {
  await buildCli();
}, 240_000);

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

afterAll(async () => {
  for (const p of projects) await p.remove();
});

/** The shipped seed's company (key demo-key-1001) on the embedded emulator, its state in state/emulator-state.json. */
async function embeddedProject(): Promise<Project> {
  const p = await createProject({
    baseUrl: 'embedded',
    companies: [{ ...COMPANY_MAIN, apiKey: 'demo-key-1001' }],
  });
  projects.push(p);
  const config = parse(p.configText()) as { emulator: Record<string, unknown> };
  config.emulator.state = path.join(p.stateDir, 'emulator-state.json');
  await writeFile(p.configFile, stringify(config));
  return p;
}

const CREATE = [
  'ranges',
  'create',
  '--type',
  'Invoice',
  '--prefix',
  'FV',
  '--authorization',
  '18764000100',
  '--from',
  '100',
  '--to',
  '200',
  '--valid-from',
  '2026-01-01',
  '--valid-to',
  '2027-12-31',
];

describe('a command beside a daemon running the embedded emulator', () => {
  test('ranges create while the daemon runs is kept: listed after the daemon saves its state again, and after a restart', async () => {
    const p = await embeddedProject();
    daemon = await DaemonProcess.start(p);

    const created = await runCli(p, CREATE);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/running daemon/);

    // the daemon's emulator issues a document: it writes its state file again
    await p.drop('invoice', 'una.json', jsonText([invoice(990_000_123, COMPANY_MAIN)]));
    const result = await p.finalResult('invoice', 'una.json');
    expect(result.counts.accepted).toBe(1);
    const stateFile = path.join(p.stateDir, 'emulator-state.json');
    await expect
      .poll(async () => (existsSync(stateFile) ? await readFile(stateFile, 'utf8') : ''), {
        timeout: 10_000,
      })
      .toContain('990000123');
    expect(await readFile(stateFile, 'utf8')).toContain('18764000100');

    const listed = await runCli(p, ['ranges', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^FV +100 +200 +18764000100 /m);

    await daemon.stop();
    daemon = await DaemonProcess.start(p);
    const again = await runCli(p, ['ranges', 'list']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^FV +100 +200 +18764000100 /m);
    await daemon.stop();
    daemon = undefined;

    // with no daemon running the command starts its own emulator from the same state file
    const alone = await runCli(p, ['ranges', 'list']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toMatch(/^FV +100 +200 +18764000100 /m);
    expect(alone.stderr).not.toMatch(/running daemon/);
  }, 120_000);
});
