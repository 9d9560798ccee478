/**
 * The daemon's embedded emulator is the one owner of its state: it loads
 * `emulator.state` at start and overwrites it after every change. A second
 * emulator on the same file (a command run beside the daemon) would lose what
 * it recorded at the daemon's next save, so the daemon publishes its
 * emulator's URL in the state folder it holds the lock of, and commands talk
 * to that emulator while the daemon runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lockHolder } from '../ledger/lock.js';

export const ENDPOINT_FILE = 'embedded-emulator.json';

interface Endpoint {
  pid: number;
  url: string;
}

function endpointPath(stateDir: string): string {
  return path.join(path.resolve(stateDir), ENDPOINT_FILE);
}

/** Writes the URL (temp file and rename, so a reader never sees half of it); returns the remover. */
export function publishEndpoint(stateDir: string, url: string): () => void {
  const file = endpointPath(stateDir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify({ pid: process.pid, url } satisfies Endpoint), {
    mode: 0o600,
  }); // state/ is private (docs/operations.md "File modes")
  fs.renameSync(temp, file);
  return () => {
    try {
      const current = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Endpoint>;
      if (current.pid === process.pid) fs.rmSync(file, { force: true });
    } catch {
      // gone already, or never readable: nothing of ours to remove
    }
  };
}

/**
 * The URL of the embedded emulator of the process holding the state folder's lock, when that process
 * published one (a daemon); undefined otherwise (no daemon, a dead one, or a `submit` holding the lock).
 */
export function runningEmulatorUrl(stateDir: string): string | undefined {
  let endpoint: Partial<Endpoint>;
  try {
    endpoint = JSON.parse(fs.readFileSync(endpointPath(stateDir), 'utf8')) as Partial<Endpoint>;
  } catch {
    return undefined;
  }
  if (typeof endpoint.url !== 'string' || endpoint.pid === process.pid) return undefined;
  const holder = lockHolder(stateDir);
  return holder !== undefined && holder.pid === endpoint.pid ? endpoint.url : undefined;
}
