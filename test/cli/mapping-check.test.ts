/**
 * Every configured mapping is loaded and checked with the configuration: a
 * misspelt path or a broken mapping refuses the configuration at start (exit 2,
 * naming the key) and at SIGHUP (the old configuration stays in force), instead
 * of surfacing when a file arrives and is archived as EDOC_MAPPING_INVALID.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, ROOT } from '../helpers/daemon-harness.js';
import { daemonTest as test, type DaemonProjectOptions } from '../helpers/daemon-fixture.js';

const SALES = path.join(ROOT, 'config/mappings/sales.csv.yaml');
const MISSPELT = path.join(ROOT, 'config/mappings/sales.csv.yml');

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** A project whose invoices come through `mapping`. */
function mapped(mapping: string): DaemonProjectOptions {
  return { kinds: { invoice: { mapping } } };
}

describe('configured mappings are checked with the configuration', () => {
  test('run with a misspelt mapping path exits 2 naming kinds.invoice.mapping, before anything is watched', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject(mapped(MISSPELT));
    const run = await runCli(p, ['run'], { timeoutMs: 20_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('kinds.invoice.mapping');
    expect(run.stderr).toContain('sales.csv.yml');
    expect(run.stderr).toContain('[EDOC_CONFIG_MAPPING]');
    expect(p.logLines().some((l) => l.msg === 'watching the inbox')).toBe(false);
  });

  test('a mapping that does not compile refuses the configuration with its own key and problem', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject(mapped(SALES));
    const broken = path.join(p.dir, 'broken.yaml');
    await writeFile(
      broken,
      (await readFile(SALES, 'utf8')).replace(/^(\s*)date:.*$/m, '$1date: not-a-date-pattern'),
    );
    await expect(loadConfig(p.configFile, {}, { cwd: p.dir }).then(() => 'loaded')).resolves.toBe(
      'loaded',
    );
    const text = (await readFile(p.configFile, 'utf8')).replace(SALES, broken);
    await writeFile(p.configFile, text);
    const err = await loadConfig(p.configFile, {}, { cwd: p.dir }).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(err?.code).toBe('EDOC_CONFIG_MAPPING');
    expect(err?.message).toMatch(/kinds\.invoice\.mapping: .*broken\.yaml.*format\.date/);
  });

  test('SIGHUP with a misspelt mapping path is refused naming the key; the old mapping stays in force', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject(mapped(SALES));
    const daemon = await startDaemon();
    const text = await readFile(p.configFile, 'utf8');
    await writeFile(p.configFile, text.replace(SALES, MISSPELT));
    daemon.signal('SIGHUP');
    const refused = await daemon.waitForLog(
      (l) => l.msg === 'new configuration refused; the old one stays in force',
    );
    expect(refused.code).toBe('EDOC_CONFIG_MAPPING');
    expect(JSON.stringify(refused.err)).toContain('kinds.invoice.mapping');

    // a CSV export arriving now is read with the mapping in force
    await mkdir(p.inbox('invoice'), { recursive: true });
    await p.drop(
      'invoice',
      'invoices.csv',
      await readFile(path.join(ROOT, 'examples/invoices.csv')),
    );
    const result = await p.finalResult('invoice', 'invoices.csv', { timeoutMs: 30_000 });
    expect(result.error).toBeUndefined();
    expect(result.counts.total).toBeGreaterThan(0);
  }, 60_000);
});
