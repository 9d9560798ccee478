/**
 * The intake reader of the built code (dist/), whose worker thread reads the files: the reader of
 * src/ has no worker to start from TypeScript sources (`IntakeReader.available()` is false there).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IntakeReader, IntakeReaderOptions } from '../../src/intake/intake-reader.js';
import type { AppLogger } from '../../src/log/logger.js';
import { ROOT } from './daemon-harness.js';

/** A new built `IntakeReader`; the caller closes it. */
export async function builtIntakeReader(
  logger: AppLogger,
  options?: IntakeReaderOptions,
): Promise<IntakeReader> {
  const { IntakeReader: Built } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/intake/intake-reader.js')).href
  )) as { IntakeReader: typeof IntakeReader };
  return new Built(logger, options);
}
