/**
 * Closing in order: every step runs even when one before it failed (its error is logged), so one
 * broken part never leaves the others open. The pipeline's close and the alerting's close use it.
 */
import type { AppLogger } from '../log/logger.js';

export type CloseStep = [name: string, step: () => Promise<unknown> | unknown];

export async function closeInOrder(steps: readonly CloseStep[], logger: Pick<AppLogger, 'error'>): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      logger.error({ err, step: name }, 'error while stopping');
    }
  }
}
