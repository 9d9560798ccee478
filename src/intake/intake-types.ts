/** What the intake of one file is given and what it comes to (intake.ts). */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { DocumentKey } from '../kinds/document-key.js';
import type { DocumentKind } from '../kinds/index.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import type { Problem } from '../validate/problem.js';
import type { IntakeReader } from './intake-reader.js';
import type { SetPart } from './set-hash.js';

export interface IntakeContext {
  ledger: LedgerPort;
  config: Readonly<Config>;
  logger: AppLogger;
  mapping(kind: DocumentKind): Promise<Mapping | undefined>;
  /** The master-data tables a mapping reads (`lookup()`), newest version each; absent: none. */
  masterTables?(mapping: Mapping | undefined): Promise<MasterTables | undefined>;
  /** Documents of this company became due. */
  onDocuments(company: string): void;
  /** The file's report should be (re)written; it may be complete. */
  onFileChanged(fileId: number): void;
  /**
   * Documents of this company stored from a file were removed or held back unsent (a file refused whole,
   * a read cut short, a read begun again): the numbers they held are used no longer (the range watch).
   */
  onNumbersFreed?(company: string): void;
  /** Pinned "today" (tests); Colombia's date otherwise. */
  today?: string;
  /** Stop reading between batches (daemon shutdown): the file stays `reading` and is re-read next start. */
  signal?: AbortSignal;
  /** Reads on the intake worker (the daemon's); absent: the file is read on this thread. */
  reader?: IntakeReader;
  /**
   * The numbering-range check (ranges/range-watch.ts): why a document's own number may not be sent,
   * or undefined. A promise only when it must read the ranges again (most documents answer at once).
   */
  checkNumber?(
    company: string,
    kind: DocumentKind,
    key: DocumentKey,
  ): Problem | undefined | Promise<Problem | undefined>;
}

export interface DroppedFile {
  path: string;
  kind: DocumentKind;
  company: CompanyConfig;
  size?: number;
  mtimeMs?: number;
  /** The name's original bytes (hex) when they were not UTF-8 and the watcher renamed the file. */
  originalName?: string;
  /** An export in two files: its parts (`path` is the header's) and the set's name (map/parts.ts setName). */
  parts?: { header: SetPart; lines: SetPart; name: string };
  /** Told once the ledger recorded the file (its company's take gate, company/take-gate.ts, is released). */
  recorded?: () => void;
}

/**
 * `changed`: the file changed while it was read; its intake was dropped (nothing sent) and the caller
 * takes it again once it is stable.
 */
export type IntakeOutcome =
  | 'read'
  | 'resumed'
  | 'duplicate-file'
  | 'failed-read'
  | 'gone'
  | 'interrupted'
  | 'changed'
  /** The intake worker was replaced for another file's sake: taken again at once (intake-queue.ts). */
  | 'again';
