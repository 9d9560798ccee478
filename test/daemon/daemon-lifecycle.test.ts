/**
 * Issue 4 "Lifecycle": SIGTERM lets in-flight requests finish, commits and
 * exits 0; one process per state folder; the log says where documents go.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonlText, jsonText, supportDocument } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('daemon lifecycle', () => {
  test('SIGTERM lets in-flight requests finish, leaves nothing sending and exits 0; the next start finishes the file', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { latencyMs: 400 },
      companies: [COMPANY_MAIN],
    });
    const daemon = await startDaemon();
    await project.drop(
      'invoice',
      'slow.jsonl',
      jsonlText(Array.from({ length: 30 }, (_, i) => invoice(990_000_001 + i))),
    );
    // Requests are at the emulator (each takes 400 ms there) when the signal comes.
    await eventually(
      async () => ((await emulator.client.submissionsInFlight()) >= 4 ? true : undefined),
      'requests in flight',
    );
    daemon.signal('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(daemon.logLines().some((l) => l.msg === 'stopped')).toBe(true);

    const states = project.ledgerStates();
    expect(states.sending ?? 0).toBe(0);
    // What was in flight finished and was recorded: the ledger's accepted are exactly the emulator's issued.
    const issued = await emulator.client.issued();
    expect(issued.length).toBeGreaterThan(0);
    expect(issued.length).toBeLessThan(30);
    expect(states.accepted).toBe(issued.length);
    expect((states.accepted ?? 0) + (states.pending ?? 0)).toBe(30);
    // Documents marked `sending` ahead of their turn whose requests never left were given back: the
    // attempt is not counted, and the history says so.
    const pending = project.ledgerQuery<{ attempts: number }>(
      `SELECT attempts FROM documents WHERE state = 'pending'`,
    );
    expect(pending.every((d) => d.attempts === 0)).toBe(true);
    const notSent =
      project.ledgerQuery<{ n: number }>(
        `SELECT count(*) AS n FROM events WHERE type = 'not-sent'`,
      )[0]?.n ?? 0;
    const sentEvents =
      project.ledgerQuery<{ n: number }>(
        `SELECT count(*) AS n FROM events WHERE type = 'sending'`,
      )[0]?.n ?? 0;
    expect(notSent).toBeGreaterThan(0);
    expect(sentEvents - notSent).toBe(issued.length);

    await emulator.client.setFaults({});
    await startDaemon();
    const result = await project.finalResult('invoice', 'slow.jsonl');
    expect(result.counts).toMatchObject({ total: 30, accepted: 30 });
    const numbers = (await emulator.client.issued())
      .map((d) => Number(d.number))
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => 990_000_001 + i));
  }, 60_000);

  test('SIGTERM with requests hanging past the drain bound: aborted after ~10 s, exit 0, numbered back to pending, unnumbered in-doubt', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { latencyMs: 25_000 },
      companies: [COMPANY_MAIN],
      timeoutMs: 30_000,
    });
    const daemon = await startDaemon();
    await project.drop(
      'invoice',
      'hang.jsonl',
      jsonlText([invoice(990_000_001), invoice(990_000_002)]),
    );
    await project.drop('support-document', 'hang-ds.json', jsonText(supportDocument()));
    // All three submissions arrived at the emulator, which holds each for 25 s.
    await eventually(
      async () => ((await emulator.client.submissionsInFlight()) >= 3 ? true : undefined),
      'three submissions held at the emulator',
    );
    const signalled = Date.now();
    daemon.signal('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(9_000);
    expect(took).toBeLessThan(20_000);
    expect(daemon.logLines().some((l) => l.msg === 'stop: aborting requests still in flight')).toBe(
      true,
    );
    expect(project.ledgerStates()).toEqual({ pending: 2, 'in-doubt': 1 });
    const ds = await project.finalResult('support-document', 'hang-ds.json');
    expect(ds.documents[0].status).toBe('in-doubt');
  }, 60_000);

  test('SIGHUP reopens the log file: after logrotate renamed it, new lines go to a new file of the same name', async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({ companies: [COMPANY_MAIN] });
    const daemon = await startDaemon();
    const rotated = `${project.logFile}.1`;
    await rename(project.logFile, rotated);
    daemon.signal('SIGHUP');
    const reloaded = await project.waitForLog((l) => l.msg === 'configuration reloaded');
    expect(reloaded.pid).toBe(daemon.child.pid);
    expect(await readFile(rotated, 'utf8')).toContain('watching the inbox');
    expect(await readFile(rotated, 'utf8')).not.toContain('configuration reloaded');
  }, 30_000);

  test('a second daemon on the same state folder exits 2 naming the lock, and the first goes on', async ({
    daemonProject,
  }) => {
    const { project, startDaemon, spawnDaemon } = await daemonProject({
      companies: [COMPANY_MAIN],
    });
    const first = await startDaemon();
    const second = spawnDaemon();
    expect(await second.exited).toEqual({ code: 2, signal: null });
    expect(second.stderr).toContain('EDOC_LEDGER_LOCKED');
    expect(second.stderr).toContain(project.stateDir);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(first.running).toBe(true);
    await project.drop('invoice', 'still-works.json', jsonText(invoice(990_000_001)));
    expect((await project.finalResult('invoice', 'still-works.json')).counts.accepted).toBe(1);
  }, 30_000);

  test('a daemon that cannot create its inbox stops at once with the reason, not with a crash a minute later', async ({
    daemonProject,
  }) => {
    const { project, spawnDaemon } = await daemonProject({ companies: [COMPANY_MAIN] });
    await writeFile(path.join(project.dir, 'not-a-folder'), 'x');
    await project.writeConfig({
      ...project.options,
      inboxRoot: path.join(project.dir, 'not-a-folder', 'inbox'),
    });
    const daemon = spawnDaemon();
    const started = Date.now();
    const exit = await daemon.exited;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(daemon.stderr).toContain('not-a-folder');
    expect(daemon.stderr).not.toMatch(/TypeError|connection is not open|\n\s+at /);
  }, 30_000);

  test('the log says where documents go: loudly when it is the embedded emulator, the URL otherwise', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({ companies: [COMPANY_MAIN] });
    let daemon = await startDaemon();
    const real = await daemon.waitForLog((l) => l.msg === 'submitting to the service');
    expect(real.baseUrl).toBe(emulator.url);
    expect(daemon.logLines().some((l) => /EMBEDDED EMULATOR/.test(l.msg))).toBe(false);
    const watching = await daemon.waitForLog((l) => l.msg === 'watching the inbox');
    expect(watching.folders).toEqual(
      expect.arrayContaining([project.inbox('invoice'), project.inbox('pos')]),
    );
    // the effective configuration, once, with every default filled in and the key hidden
    const effective = daemon.logLines().filter((l) => l.msg === 'effective configuration');
    expect(effective).toHaveLength(1);
    const logged = effective[0].config as {
      service: Record<string, unknown>;
      companies: Record<string, unknown>[];
      retry: unknown;
    };
    expect(logged.service).toMatchObject({ baseUrl: emulator.url, paths: 'primary' });
    expect(logged.retry).toEqual({ maxAttempts: 8, baseDelayMs: 20, maxDelayMs: 200 });
    expect(logged.companies[0]).toMatchObject({ alias: 'main', id: COMPANY_MAIN.id });
    expect(logged.companies[0].apiKey).toBe('[redacted]');
    expect(JSON.stringify(effective[0])).not.toContain(COMPANY_MAIN.apiKey);
    await daemon.stop();

    // The shipped default: `embedded` with the shipped seed (company 1001, demo key).
    await project.writeConfig({
      ...project.options,
      baseUrl: 'embedded',
      apiKeys: { main: 'demo-key-1001' },
    });
    daemon = await startDaemon();
    const loud = await daemon.waitForLog((l) => /EMBEDDED EMULATOR/.test(l.msg));
    expect(loud.level).toBe('warn');
    expect(loud.msg).toContain('NOT to the tax authority');
    expect(String(loud.baseUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await project.drop('invoice', 'embedded.json', jsonText(invoice(990_000_001)));
    expect((await project.finalResult('invoice', 'embedded.json')).counts.accepted).toBe(1);
  }, 30_000);
});
