/**
 * docs/operations.md "Signals": SIGHUP reloads the configuration of a running
 * daemon. A changed `rate.requestsPerSecond` takes effect for the documents
 * that follow (measured as the busiest one-second window at the emulator); a
 * new file that does not validate is refused with an error line naming the
 * key, and the old rate stays in force. (A file that is not even YAML is
 * covered in test/daemon/daemon-auth-rate.test.ts.)
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  eventually,
  type Project,
  type ResultJson,
  type TestCompany,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

function withRate(
  companies: readonly TestCompany[],
  requestsPerSecond: number,
  concurrency: number,
): TestCompany[] {
  return companies.map((c) => ({ ...c, rate: { requestsPerSecond, concurrency } }));
}

/** Drops `count` invoices from `first` as NAME, waits until all are accepted, returns the busiest second since the last reset. */
async function batch(
  emu: TestEmulator,
  p: Project,
  name: string,
  first: number,
  count: number,
): Promise<{ busiest: number; ms: number }> {
  await emu.client.resetStats();
  const started = Date.now();
  await p.drop(
    'invoice',
    name,
    jsonlText(Array.from({ length: count }, (_, i) => invoice(first + i))),
  );
  const result = await p.finalResult('invoice', name, { timeoutMs: 15_000 });
  expect(result.counts).toMatchObject({ total: count, accepted: count });
  const stats = await emu.client.stats();
  return { busiest: stats.busiestSecond[String(COMPANY_MAIN.id)] ?? 0, ms: Date.now() - started };
}

describe('SIGHUP reloads the configuration of the running daemon', () => {
  test('rate 2/s, then a new file with a negative rate is refused (old rate kept), then 8/s takes effect', async ({
    annotate,
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      companies: withRate([COMPANY_MAIN], 2, 2),
    });
    const daemon = await startDaemon();

    const slow = await batch(emulator, project, 'lento.jsonl', 990_300_001, 6);
    expect(slow.busiest).toBe(2);

    // A file that parses but does not validate: refused, the key named, the daemon goes on at 2/s.
    await writeFile(
      project.configFile,
      project.configText({
        ...project.options,
        companies: withRate(project.options.companies, -1, 2),
      }),
    );
    daemon.signal('SIGHUP');
    const refused = await daemon.waitForLog(
      (l) => l.level === 'error' && /configuration refused/.test(l.msg),
    );
    expect(refused.code).toMatch(/^EDOC_CONFIG_/);
    expect(JSON.stringify(refused.err)).toContain('requestsPerSecond');
    const kept = await batch(emulator, project, 'sigue-lento.jsonl', 990_300_101, 4);
    expect(kept.busiest).toBe(2);
    expect(daemon.running).toBe(true);

    // The rate applies at once; a changed timeout only at the next start, and the daemon says so.
    await project.writeConfig({
      ...project.options,
      companies: withRate(project.options.companies, 8, 4),
      timeoutMs: 6_000,
    });
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    const later = await daemon.waitForLog((l) => l.level === 'warn' && /restarts/.test(l.msg));
    expect(later.keys).toEqual(['service.timeoutMs']);
    const fast = await batch(emulator, project, 'rapido.jsonl', 990_300_201, 24);
    await annotate(
      `reload: busiest second 2/s phase ${slow.busiest} (${slow.ms} ms for 6), after the refused file ${kept.busiest}, ` +
        `8/s phase ${fast.busiest} (${fast.ms} ms for 24)`,
    );
    // at 2/s the busiest second holds 2 (both phases above): more is the new rate in force, by the emulator's count
    expect(fast.busiest).toBeGreaterThanOrEqual(6);
    expect(fast.busiest).toBeLessThanOrEqual(8);
    expect((await emulator.client.issued()).length).toBe(34);
  }, 40_000);

  test('a second company added while a file is being sent: the file finishes in the folders it began in; new drops use the new layout', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({
      seed: [COMPANY_MAIN, COMPANY_OTHER],
      companies: withRate([COMPANY_MAIN], 2, 1),
    });
    const daemon = await startDaemon();
    const nums = Array.from({ length: 6 }, (_, i) => 990_300_501 + i);
    await project.drop('invoice', 'en-curso.jsonl', jsonlText(nums.map((n) => invoice(n))));
    await daemon.waitForLog((l) => l.msg === 'document final');

    // one company -> two: the folders become inbox/<company>/<kind>/ and outbox/<company>/<kind>/
    await project.writeConfig({
      ...project.options,
      companies: withRate([COMPANY_MAIN, COMPANY_OTHER], 8, 2),
    });
    daemon.signal('SIGHUP');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    const unwatched = await daemon.waitForLog((l) => /no longer watched/.test(l.msg));
    expect(unwatched.folders).toContain(path.join(project.dir, 'inbox', 'invoice'));
    const began = path.join(project.dir, 'outbox', 'invoice');
    const result = await eventually(
      async () => {
        const text = await readFile(path.join(began, 'en-curso.result.json'), 'utf8').catch(
          () => undefined,
        );
        const r = text === undefined ? undefined : (JSON.parse(text) as ResultJson);
        return r?.finishedAt === null ? undefined : r;
      },
      'the final en-curso.result.json where the file began',
      20_000,
    );
    expect(result.counts).toMatchObject({ total: 6, accepted: 6 });
    // the final report comes first, then the original moves to the archive (file-reports.ts: copied, then
    // removed): both may come a moment after the final report
    await eventually(
      async () => (existsSync(path.join(began, 'archive', 'en-curso.jsonl')) ? true : undefined),
      'the original archived where the file began',
      10_000,
    );
    await eventually(
      async () =>
        existsSync(path.join(project.dir, 'inbox', 'invoice', 'en-curso.jsonl')) ? undefined : true,
      'the original gone from the inbox',
      10_000,
    );
    expect(
      existsSync(path.join(project.dir, 'outbox', 'main', 'invoice', 'en-curso.result.json')),
    ).toBe(false);

    await project.drop('invoice', 'nuevo.jsonl', jsonlText([invoice(990_300_601)]), 'main');
    const next = await project.finalResult('invoice', 'nuevo.jsonl', { company: 'main' });
    expect(next.counts).toMatchObject({ total: 1, accepted: 1 });
    await eventually(
      async () =>
        existsSync(path.join(project.dir, 'outbox', 'main', 'invoice', 'archive', 'nuevo.jsonl'))
          ? true
          : undefined,
      'nuevo.jsonl archived',
      10_000,
    );
  });

  test('a SIGHUP while the program still loads (logrotate right after a restart) neither kills it nor is lost: it reloads once started', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject();
    const daemon = spawnDaemon();
    const pid = daemon.child.pid as number;
    // bin/edoc-bridge.js holds SIGHUP (bit 0 of SigCgt) before the program loads; run listens only once it
    // has its configuration and has opened the log file. So: SIGHUP caught, log file not open = the hold.
    const state = (): { hup: boolean; logOpen: boolean } | undefined => {
      try {
        const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(
          readFileSync(`/proc/${pid}/status`, 'utf8'),
        )?.[1];
        if (mask === undefined) return undefined;
        const fds = readdirSync(`/proc/${pid}/fd`);
        const logOpen = fds.some((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`) === project.logFile;
          } catch {
            return false;
          }
        });
        return { hup: (BigInt(`0x${mask}`) & 1n) === 1n, logOpen };
      } catch {
        return undefined;
      }
    };
    const deadline = Date.now() + 15_000;
    let seen = state();
    while (seen?.hup !== true && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen = state();
    }
    daemon.signal('SIGHUP');
    expect(seen).toEqual({ hup: true, logOpen: false });
    await daemon.waitForLog((l) => l.msg === 'watching the inbox');
    await daemon.waitForLog((l) => l.msg === 'configuration reloaded');
    expect(daemon.running).toBe(true);
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
  });
});
