/**
 * Issue 12 item 11: what the bridge creates holds customer data, so it is never readable by the world,
 * whatever the umask it was started with. The real CLI runs under `umask 000` (the worst case); every
 * file and folder it created is checked (docs/operations.md, "File modes").
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  BIN,
  buildCli,
  childEnv,
  COMPANY_MAIN,
  eventually,
  type Project,
  ROOT,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** `edoc-bridge ARGS --config FILE` started by a shell whose umask is 000. */
function underUmask000(
  p: Project,
  args: readonly string[],
): { kill(): void; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(
    '/bin/sh',
    ['-c', 'umask 000; exec "$NODE" "$BIN" "$@"', 'sh', ...args, '--config', p.configFile],
    {
      cwd: p.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(p.dir, { NODE: process.execPath, BIN }),
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.resume();
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  return { kill: () => child.kill('SIGTERM'), done };
}

/** The folders `modes` met (a temp file may be gone by the time its entry is checked: no second lstat). */
const folders = new Set<string>();

/** Every file and folder under `dir` (the folder itself included), with its permission bits. */
function modes(dir: string): Map<string, number> {
  const out = new Map<string, number>([[dir, lstatSync(dir).mode & 0o777]]);
  folders.add(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [k, v] of modes(full)) out.set(k, v);
    else {
      // an atomic write's temp file can be renamed away between the listing and this look
      const mode = lstatSync(full, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined) out.set(full, mode & 0o777);
    }
  }
  return out;
}

const octal = (m: number): string => `0${m.toString(8)}`;

/** The modes issue 12 item 11 asks for: ledger and logs owner-only; outbox files owner + group read; nothing for the world. */
function expectPrivate(p: Project): string[] {
  const seen: string[] = [];
  const state = modes(p.stateDir);
  const logs = modes(path.join(p.dir, 'logs'));
  const outbox = modes(path.join(p.dir, 'outbox'));
  expect(octal(state.get(p.stateDir) ?? 0), 'state/').toBe('0700');
  expect(octal(logs.get(path.join(p.dir, 'logs')) ?? 0), 'logs/').toBe('0700');
  for (const [file, mode] of [...state, ...logs]) {
    if (file === p.stateDir || file === path.join(p.dir, 'logs')) continue;
    seen.push(path.relative(p.dir, file));
    expect(octal(mode), file).toBe('0600');
  }
  for (const [file, mode] of outbox) {
    // an archived original is the ERP's own file moved (its mode is the ERP's), not one the bridge created
    if (file.split(path.sep).includes('archive') && !folders.has(file)) continue;
    seen.push(path.relative(p.dir, file));
    if (folders.has(file))
      expect(mode & 0o007, `${file} (${octal(mode)}) is open to the world`).toBe(0);
    else expect(octal(mode), file).toBe('0640');
  }
  return seen;
}

describe('private files (umask 000)', () => {
  test('the daemon: ledger, WAL, lock, log, emulator state, outbox reports, received documents and index are never world-readable', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject({
      baseUrl: 'embedded',
      companies: [{ ...COMPANY_MAIN, apiKey: 'demo-key-1001' }],
    });
    const config = parse(p.configText()) as Record<string, unknown>;
    config.received = { enabled: true, every: '15m', lookbackDays: 3, startDate: '2026-06-01' };
    config.emulator = {
      seed: path.join(ROOT, 'config/emulator-seed.json'),
      state: path.join(p.stateDir, 'emulator.json'),
    };
    await writeFile(p.configFile, stringify(config));
    const daemon = underUmask000(p, ['run']);
    try {
      await p.waitForLog((l) => l.msg === 'watching the inbox', { timeoutMs: 30_000 });
      await p.drop(
        'invoice',
        'lote.jsonl',
        `${jsonlText([invoice(990_000_001, COMPANY_MAIN), invoice(990_000_002, COMPANY_MAIN)])}{"not":"an invoice"}\n`,
      );
      await p.waitForLog((l) => l.msg === 'file complete' && l.file === 'lote.jsonl', {
        timeoutMs: 30_000,
      });
      await eventually(
        () => (existsSync(path.join(p.stateDir, 'emulator.json')) ? true : undefined),
        'the emulator state file',
        20_000,
      );
      await eventually(
        () =>
          existsSync(path.join(p.dir, 'outbox/received/main')) &&
          modes(path.join(p.dir, 'outbox/received/main')).size > 2
            ? true
            : undefined,
        'received documents',
        30_000,
      );
      // while it runs: the lock and the WAL files are there too
      const running = modes(p.stateDir);
      for (const name of [
        'ledger.sqlite',
        'ledger.sqlite-wal',
        'ledger.sqlite-shm',
        'edoc-bridge.lock',
      ]) {
        expect(octal(running.get(path.join(p.stateDir, name)) ?? -1), name).toBe('0600');
      }
      const seen = expectPrivate(p);
      expect(seen.filter((f) => /result\.json|errors\.csv|retry\.jsonl/.test(f))).toHaveLength(3);
      expect(
        seen.some(
          (f) => f.startsWith(path.join('outbox', 'received', 'main')) && f.endsWith('.json'),
        ),
      ).toBe(true);
      expect(seen).toContain(path.join('logs', 'edoc-bridge.log'));
    } finally {
      daemon.kill();
      expect((await daemon.done).code).toBe(0);
    }
    expectPrivate(p);
  }, 120_000);

  test('edoc-bridge submit: a fresh ledger, its log and the reports are private too', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const file = path.join(p.dir, 'ventas.jsonl');
    await writeFile(
      file,
      `${jsonlText([invoice(990_000_001, COMPANY_MAIN)])}{"not":"an invoice"}\n`,
    );
    const run = underUmask000(p, ['submit', file, '--kind', 'invoice']);
    const { code, stderr } = await run.done;
    expect(code, stderr).toBe(1);
    const seen = expectPrivate(p);
    expect(seen).toContain(path.join('state', 'ledger.sqlite'));
    expect(
      seen.filter((f) => /ventas\.(result\.json|errors\.csv|retry\.jsonl)$/.test(f)),
    ).toHaveLength(3);
  }, 60_000);
});
