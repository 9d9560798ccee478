/**
 * A small JSON file of the state folder (paused.json, ranges.json, waiting-parts.json) written whole:
 * a temporary file renamed over it, so a reader (`edoc-bridge status`) never sees half of it. Owner-only,
 * like the ledger. Not fsynced: these files say what the running daemon sees, are rewritten often, and
 * are rebuilt at start, so a crash that loses the last write loses nothing the ledger does not hold.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';

export async function writeStateFile(file: string, data: unknown): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
