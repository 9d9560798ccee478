/**
 * The shipped systemd unit and the cluster node's drop-in, checked by systemd itself: `systemd-analyze
 * verify` loads the unit with its drop-ins from a scratch unit path and must print nothing (an unknown or
 * misspelt key is only a warning to systemd, so the test fails on any output, not on the exit code).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DEPLOY = path.join(import.meta.dirname, '..', '..', 'deploy');
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => fs.existsSync(p));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-units-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const shipped = (name: string): string => fs.readFileSync(path.join(DEPLOY, name), 'utf8');

/** What systemd prints loading edoc-bridge.service with these drop-ins (name -> text). */
async function verify(dropIns: Record<string, string>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(scratch, 'u-'));
  fs.writeFileSync(path.join(dir, 'edoc-bridge.service'), shipped('edoc-bridge.service'));
  fs.mkdirSync(path.join(dir, 'edoc-bridge.service.d'));
  for (const [name, text] of Object.entries(dropIns))
    fs.writeFileSync(path.join(dir, 'edoc-bridge.service.d', name), text);
  // the trailing ':' keeps systemd's own unit folders after ours
  const out = await run(ANALYZE as string, ['verify', 'edoc-bridge.service'], {
    env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` },
    cwd: dir,
    timeout: 30_000,
  });
  return `${out.stdout}${out.stderr}`;
}

describe.skipIf(ANALYZE === undefined)('systemd units (systemd-analyze verify)', () => {
  it('the unit alone loads without a warning', async () => {
    expect(await verify({})).toBe('');
  });

  it('the unit with the cluster node drop-in loads without a warning', async () => {
    expect(await verify({ 'cluster-node.conf': shipped('cluster-node.conf') })).toBe('');
  });

  it('a misspelt key in the drop-in is reported (the check is not blind)', async () => {
    const out = await verify({
      'cluster-node.conf': `${shipped('cluster-node.conf')}\nRestrtSec=1\n`,
    });
    expect(out).toMatch(/Unknown key 'RestrtSec'/);
  });
});
