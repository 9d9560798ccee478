import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/edoc-bridge.js');

/** The lines bin/edoc-bridge.js accepts and the lowest minor of each, read from its source (the constant it checks against). */
function binLines(): Array<[number, number]> {
  const match = /const SUPPORTED = (\[\[[\d, [\]]+\]\]);/.exec(fs.readFileSync(BIN, 'utf8'));
  if (match === null) throw new Error('bin/edoc-bridge.js has no SUPPORTED');
  return JSON.parse(match[1]) as Array<[number, number]>;
}

/** A `node` on this machine whose line is not supported (Debian's Node 20 on CI), if any. */
function unsupportedNode(): { file: string; version: string } | undefined {
  const lines = binLines();
  const candidates = new Set<string>(['/usr/bin/node', '/usr/local/bin/node']);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter))
    if (dir !== '') candidates.add(path.join(dir, 'node'));
  for (const file of candidates) {
    if (!fs.existsSync(file)) continue;
    let version: string;
    try {
      version = execFileSync(file, ['-p', 'process.versions.node'], {
        encoding: 'utf8',
        timeout: 20_000,
      }).trim();
    } catch {
      continue;
    }
    const [major, minor] = version.split('.').map(Number);
    if (!lines.some(([m, n]) => m === major && minor >= n)) return { file, version };
  }
  return undefined;
}

describe('the Node the program runs on', () => {
  test('package.json engines names exactly the lines bin/edoc-bridge.js accepts, from the same lowest release of each', () => {
    const engines = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        engines: { node: string };
      }
    ).engines.node;
    expect(engines).toBe(
      binLines()
        .map(([major, minor]) => `^${major}.${minor}.0`)
        .join(' || '),
    );
  });

  test("an unsupported Node (the machine's own, e.g. 20) is refused with one line naming it and the supported lines, exit 2", async () => {
    const old = unsupportedNode();
    if (old === undefined) {
      // CI sets EDOC_REQUIRE_OLD_NODE=1: its machine carries Node 20, so this must run there
      if (process.env.EDOC_REQUIRE_OLD_NODE === '1')
        throw new Error(
          'EDOC_REQUIRE_OLD_NODE=1 but no node of an unsupported line on this machine',
        );
      process.stderr.write(
        'node-version.test: no node of an unsupported line on this machine; the refusal is not exercised\n',
      );
      return;
    }
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-node-version-'));
    try {
      for (const args of [['run', '--config', 'missing.yaml'], ['--version'], ['status']]) {
        const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
          (resolve) => {
            execFile(
              old.file,
              [BIN, ...args],
              { cwd, timeout: 30_000 },
              (error, stdout, stderr) => {
                resolve({
                  code: error ? ((error as { code?: number }).code ?? null) : 0,
                  stdout,
                  stderr,
                });
              },
            );
          },
        );
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(
          `edoc-bridge: Node ${old.version} is not supported; use Node 22 (22.14 or later), 24 or 26, see README "Node versions"\n`,
        );
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
