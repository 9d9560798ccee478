/**
 * closeInOrder: every step runs even after one failed; a step that runs long is named in one warning
 * while it runs (a stop that hangs says what it waits for).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { closeInOrder } from '../../src/daemon/close-steps.js';
import { createLogger } from '../../src/log/logger.js';

it('runs every step in order, logs a failed one, and names a step still running after slowMs once', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-close-steps-'));
  try {
    const file = path.join(dir, 'edoc-bridge.log');
    const logger = createLogger({ file, level: 'info' });
    const ran: string[] = [];
    await closeInOrder(
      [
        [
          'first',
          () => {
            ran.push('first');
            throw new Error('broken part');
          },
        ],
        [
          'slow',
          async () => {
            ran.push('slow');
            await new Promise((resolve) => setTimeout(resolve, 400));
          },
        ],
        [
          'last',
          () => {
            ran.push('last');
          },
        ],
      ],
      logger,
      100,
    );
    await logger.close();
    expect(ran).toEqual(['first', 'slow', 'last']);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l['msg'] === 'error while stopping').map((l) => l['step'])).toEqual([
      'first',
    ]);
    const slow = lines.filter((l) => l['msg'] === 'stopping: still waiting for this step');
    expect(slow.map((l) => l['step'])).toEqual(['slow']);
    // after about slowMs, not at once: Node's timers run on the event loop's cached clock, which can be
    // up to a millisecond behind performance.now(), so 100 ms measure 99 now and then (seen on Node 22)
    expect(slow[0]?.['waitedMs']).toBeGreaterThanOrEqual(99);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
