/** The intake's unit: an input file (or a set of two) ready to be taken. */
import type { DroppedFile } from './intake-types.js';

/** An input file ready to be taken: from the inbox watcher, or named to `submit`. */
export interface PipelineFile extends Omit<DroppedFile, 'company'> {
  /** The company's alias. */
  company: string;
  /** The done marker that made it ready: removed once the file is in the ledger for good. */
  marker?: string;
}
