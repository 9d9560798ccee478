/**
 * Exports in two files (map/parts.ts): the inbox watcher hands out each file once it is complete
 * (stable, renamed in, or its done marker there); this holds each part until its partner is
 * complete too, then hands the set on as one intake unit (`PipelineFile.parts`). A part that waits
 * longer than the mapping's `waitMs` gets one warning line (EDOC_READ_SET_WAITING) and is listed by
 * `waiting()` (written to the state folder for `status`); it keeps waiting and nothing of it is sent.
 *
 * A set handed on is remembered while its files are there, so a part that changes later is paired
 * again with its partner: new content of either part is a new set (a new content hash), the same
 * content a duplicate (the ledger's content dedupe).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { AppLogger } from '../log/logger.js';
import { partOf, setName, type PartName, type Parts } from '../map/parts.js';
import { isGone } from '../read/file-snapshot.js';
import type { PipelineFile } from './pipeline-file.js';
import type { SetPart } from './set-hash.js';
import { saveWaitingParts } from './waiting-parts-file.js';

interface Entry {
  company: string;
  kind: PipelineFile['kind'];
  parts: Partial<Record<PartName, SetPart>>;
  /** Since when a part waits for its partner (undefined: the set is complete or was handed on). */
  since?: number;
  warned: boolean;
  waitMs: number;
}

const SWEEP_MS = 1_000;

export interface WaitingPart {
  company: string;
  kind: string;
  file: string;
  waitsFor: string;
  since: number;
}

export class PartSets {
  private readonly entries = new Map<string, Entry>();

  /** Looks at the waiting parts every SWEEP_MS, from the first part on. */
  private timer: NodeJS.Timeout | undefined;
  /** The list last written for `status` (JSON), to write it only when it changes. */
  private recorded = '[]';

  constructor(
    private readonly logger: AppLogger,
    /** The state folder `waiting-parts.json` is written to (status). */
    private readonly stateDir: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A complete file of a folder whose mapping reads sets: the set to take when its partner is
   * complete too, else undefined (it waits). A file that is no part is returned as it is (the
   * intake refuses it: EDOC_READ_SET_NOT_A_PART).
   */
  async add(file: PipelineFile, parts: Parts): Promise<PipelineFile | undefined> {
    this.timer ??= setInterval(() => {
      this.sweep().catch((err: unknown) =>
        this.logger.warn({ err }, 'could not look at the waiting parts'),
      );
    }, SWEEP_MS).unref();
    const name = path.basename(file.path);
    const found = partOf(parts, name);
    if (found === undefined) return file;
    const key = [file.company, file.kind, path.dirname(file.path), found.set.toLowerCase()].join(
      '\0',
    );
    const entry: Entry = this.entries.get(key) ?? {
      company: file.company,
      kind: file.kind,
      parts: {},
      warned: false,
      waitMs: parts.waitMs,
    };
    entry.waitMs = parts.waitMs;
    entry.parts[found.part] = {
      path: file.path,
      size: file.size ?? 0,
      mtimeMs: file.mtimeMs ?? 0,
      ...(file.marker === undefined ? {} : { marker: file.marker }),
    };
    this.entries.set(key, entry);
    const partner = found.part === 'header' ? 'lines' : 'header';
    const other = entry.parts[partner];
    // the partner handed out before may be gone since (archived with its earlier set)
    if (other === undefined || !(await stillThere(other))) {
      delete entry.parts[partner];
      if (entry.since === undefined) {
        entry.since = this.now();
        entry.warned = false;
      }
      return undefined;
    }
    delete entry.since;
    entry.warned = false;
    const header = entry.parts.header!;
    const lines = entry.parts.lines!;
    return {
      path: header.path,
      company: file.company,
      kind: file.kind,
      size: header.size + lines.size,
      mtimeMs: Math.max(header.mtimeMs, lines.mtimeMs),
      parts: { header, lines, name: setName(header.path, lines.path) },
    };
  }

  /** Warns once for each part waiting longer than its mapping's waitMs; drops sets whose files are gone. */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      const present: SetPart[] = [];
      for (const p of [entry.parts.header, entry.parts.lines])
        if (p !== undefined && (await stillThere(p))) present.push(p);
      if (present.length === 0) {
        this.entries.delete(key);
        continue;
      }
      if (entry.since === undefined || entry.warned || now - entry.since < entry.waitMs) continue;
      entry.warned = true;
      const waiting = this.describe(entry);
      if (waiting === undefined) continue;
      this.logger.warn(
        {
          code: 'EDOC_READ_SET_WAITING',
          file: path.basename(waiting.file),
          waitsFor: waiting.waitsFor,
          company: entry.company,
          kind: entry.kind,
          waitedMs: now - entry.since,
        },
        'a part of an export in two files waits for its partner: nothing of it is sent until the partner is complete in the same folder',
      );
    }
    await this.record();
  }

  /** Writes the waiting parts for `status` when they changed; a write that fails is a warning. */
  private async record(): Promise<void> {
    const parts = this.waiting().map((w) => ({
      company: w.company,
      kind: w.kind,
      file: path.basename(w.file),
      waitsFor: w.waitsFor,
      since: new Date(w.since).toISOString(),
    }));
    const text = JSON.stringify(parts);
    if (text === this.recorded) return;
    try {
      await saveWaitingParts(this.stateDir(), parts);
      this.recorded = text;
    } catch (err) {
      this.logger.warn(
        { code: (err as NodeJS.ErrnoException).code },
        'could not record the waiting parts for edoc-bridge status',
      );
    }
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** The parts waiting longer than their waitMs (status). */
  waiting(): WaitingPart[] {
    const now = this.now();
    const out: WaitingPart[] = [];
    for (const entry of this.entries.values()) {
      if (entry.since === undefined || now - entry.since < entry.waitMs) continue;
      const w = this.describe(entry);
      if (w !== undefined) out.push(w);
    }
    return out;
  }

  private describe(entry: Entry): WaitingPart | undefined {
    const have = entry.parts.header ?? entry.parts.lines;
    if (have === undefined || entry.since === undefined) return undefined;
    return {
      company: entry.company,
      kind: entry.kind,
      file: have.path,
      waitsFor: entry.parts.header === undefined ? 'header' : 'lines',
      since: entry.since,
    };
  }
}

async function stillThere(part: SetPart): Promise<boolean> {
  try {
    await stat(part.path);
    return true;
  } catch (err) {
    if (isGone(err)) return false;
    throw err;
  }
}
