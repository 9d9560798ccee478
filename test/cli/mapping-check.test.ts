/**
 * Every configured mapping is loaded and checked with the configuration: a
 * misspelt path or a broken mapping refuses the configuration at start (exit 2,
 * naming the key) and at SIGHUP (the old configuration stays in force), instead
 * of surfacing when a file arrives and is archived as EDOC_MAPPING_INVALID.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli, COMPANY_MAIN, createProject, DaemonProcess, type Project, ROOT, startTestEmulator, type TestEmulator,
} from '../helpers/daemon-harness.js';

let emulator: TestEmulator;
const projects: Project[] = [];
let daemon: DaemonProcess | undefined;

const SALES = path.join(ROOT, 'config/mappings/sales.csv.yaml');
const MISSPELT = path.join(ROOT, 'config/mappings/sales.csv.yml');

beforeAll(async () => {
  await buildCli();
  emulator = await startTestEmulator([COMPANY_MAIN]);
}, 240_000);

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

afterAll(async () => {
  await emulator?.close();
  for (const p of projects) await p.remove();
});

async function project(mapping: string): Promise<Project> {
  const p = await createProject({ baseUrl: emulator.url, companies: [COMPANY_MAIN], kinds: { invoice: { mapping } } });
  projects.push(p);
  return p;
}

describe('configured mappings are checked with the configuration', () => {
  test('run with a misspelt mapping path exits 2 naming kinds.invoice.mapping, before anything is watched', async () => {
    const p = await project(MISSPELT);
    const run = await runCli(p, ['run'], { timeoutMs: 20_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('kinds.invoice.mapping');
    expect(run.stderr).toContain('sales.csv.yml');
    expect(run.stderr).toContain('[EDOC_CONFIG_MAPPING]');
    expect(p.logLines().some((l) => l.msg === 'watching the inbox')).toBe(false);
  });

  test('a mapping that does not compile refuses the configuration with its own key and problem', async () => {
    const p = await project(SALES);
    const broken = path.join(p.dir, 'broken.yaml');
    await writeFile(broken, (await readFile(SALES, 'utf8')).replace(/^(\s*)date:.*$/m, '$1date: not-a-date-pattern'));
    await expect(loadConfig(p.configFile, {}, { cwd: p.dir }).then(() => 'loaded')).resolves.toBe('loaded');
    const text = (await readFile(p.configFile, 'utf8')).replace(SALES, broken);
    await writeFile(p.configFile, text);
    const err = await loadConfig(p.configFile, {}, { cwd: p.dir }).then(() => undefined, (e: unknown) => e as Error & { code: string });
    expect(err?.code).toBe('EDOC_CONFIG_MAPPING');
    expect(err?.message).toMatch(/kinds\.invoice\.mapping: .*broken\.yaml.*format\.date/);
  });

  test('SIGHUP with a misspelt mapping path is refused naming the key; the old mapping stays in force', async () => {
    const p = await project(SALES);
    daemon = await DaemonProcess.start(p);
    const text = await readFile(p.configFile, 'utf8');
    await writeFile(p.configFile, text.replace(SALES, MISSPELT));
    daemon.signal('SIGHUP');
    const refused = await daemon.waitForLog((l) => l.msg === 'new configuration refused; the old one stays in force');
    expect(refused.code).toBe('EDOC_CONFIG_MAPPING');
    expect(JSON.stringify(refused.err)).toContain('kinds.invoice.mapping');

    // a CSV export arriving now is read with the mapping in force
    await mkdir(p.inbox('invoice'), { recursive: true });
    await p.drop('invoice', 'invoices.csv', await readFile(path.join(ROOT, 'examples/invoices.csv')));
    const result = await p.finalResult('invoice', 'invoices.csv', { timeoutMs: 30_000 });
    expect(result.error).toBeUndefined();
    expect(result.counts.total).toBeGreaterThan(0);
  }, 60_000);
});
