import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/edoc-bridge.js');

/** The lines bin/edoc-bridge.js accepts, read from its source (the constant it checks against). */
function binLines(): number[] {
  const match = /const SUPPORTED_LINES = \[([\d, ]+)\];/.exec(fs.readFileSync(BIN, 'utf8'));
  if (match === null) throw new Error('bin/edoc-bridge.js has no SUPPORTED_LINES');
  return match[1].split(',').map((s) => Number(s.trim()));
}

/** A `node` on this machine whose line is not supported (Debian's Node 20 on CI), if any. */
function unsupportedNode(): { file: string; version: string } | undefined {
  const lines = binLines();
  const candidates = new Set<string>(['/usr/bin/node', '/usr/local/bin/node']);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir !== '') candidates.add(path.join(dir, 'node'));
  for (const file of candidates) {
    if (!fs.existsSync(file)) continue;
    let version: string;
    try {
      version = execFileSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 20_000 }).trim();
    } catch {
      continue;
    }
    if (!lines.includes(Number(version.split('.')[0]))) return { file, version };
  }
  return undefined;
}

describe('the Node the program runs on', () => {
  test('package.json engines names exactly the lines bin/edoc-bridge.js accepts, every patch of each', () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(binLines().map((line) => `^${line}.0.0`).join(' || '));
  });

  test('an unsupported Node (the machine\'s own, e.g. 20) is refused with one line naming it and the supported lines, exit 2', async () => {
    const old = unsupportedNode();
    if (old === undefined) {
      // CI sets EDOC_REQUIRE_OLD_NODE=1: its machine carries Node 20, so this must run there
      if (process.env.EDOC_REQUIRE_OLD_NODE === '1') throw new Error('EDOC_REQUIRE_OLD_NODE=1 but no node of an unsupported line on this machine');
      process.stderr.write('node-version.test: no node of an unsupported line on this machine; the refusal is not exercised\n');
      return;
    }
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-node-version-'));
    try {
      for (const args of [['run', '--config', 'missing.yaml'], ['--version'], ['status']]) {
        const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          execFile(old.file, [BIN, ...args], { cwd, timeout: 30_000 }, (error, stdout, stderr) => {
            resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
          });
        });
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(`edoc-bridge: Node ${old.version} is not supported; use Node 22, 24 or 26 (any patch), see README "Node versions"\n`);
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
