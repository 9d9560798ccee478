/**
 * Closing in order: every step runs even when one before it failed (its error is logged), so one
 * broken part never leaves the others open. The pipeline's close and the alerting's close use it. A step
 * still running after `slowMs` is named in a warning, once: a stop that hangs (systemd waiting for
 * TimeoutStopSec) says what it waits for.
 */
import type { AppLogger } from '../log/logger.js';

export type CloseStep = [name: string, step: () => Promise<unknown> | unknown];

/** How long a step may run before the warning that names it. */
export const SLOW_CLOSE_STEP_MS = 5_000;

export async function closeInOrder(
  steps: readonly CloseStep[],
  logger: Pick<AppLogger, 'error' | 'warn'>,
  slowMs = SLOW_CLOSE_STEP_MS,
): Promise<void> {
  for (const [name, step] of steps) {
    const started = performance.now();
    const slow = setTimeout(() => {
      logger.warn(
        { step: name, waitedMs: Math.round(performance.now() - started) },
        'stopping: still waiting for this step',
      );
    }, slowMs);
    slow.unref();
    try {
      await step();
    } catch (err) {
      logger.error({ err, step: name }, 'error while stopping');
    } finally {
      clearTimeout(slow);
    }
  }
}
