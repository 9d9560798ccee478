import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ReadyFile, WatchLogger } from '../../src/watch/inbox-watcher.js';

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'edoc-watch-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export interface RecordedLine {
  level: 'warn' | 'error' | 'debug';
  obj: Record<string, unknown>;
  msg: string;
}

export function recordingLogger(): WatchLogger & { lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  return {
    lines,
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
    debug: (obj, msg) => lines.push({ level: 'debug', obj, msg }),
  };
}

/** Pulls ready files in the background and records when each arrived. */
export function collect(files: AsyncIterable<ReadyFile>): {
  got: { file: ReadyFile; at: number }[];
  waitFor: (count: number, timeoutMs?: number) => Promise<void>;
} {
  const got: { file: ReadyFile; at: number }[] = [];
  void (async () => {
    for await (const file of files) got.push({ file, at: Date.now() });
  })();
  const waitFor = async (count: number, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (got.length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} ready files, got ${got.length}`);
      await sleep(20);
    }
  };
  return { got, waitFor };
}

/** Waits until the logger recorded a line with this message (and file name, when given). */
export async function waitForLine(
  logger: { lines: RecordedLine[] },
  msg: string,
  fileName?: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const matches = (l: RecordedLine): boolean =>
    l.msg === msg && (fileName === undefined || String(l.obj.file).endsWith(fileName));
  while (!logger.lines.some(matches)) {
    if (Date.now() > deadline)
      throw new Error(`no log line '${msg}' for ${fileName ?? 'any file'}`);
    await sleep(20);
  }
}
