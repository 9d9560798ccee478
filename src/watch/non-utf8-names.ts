/**
 * File names that are not UTF-8 (an ERP writing Windows-1252 / Latin-1 names,
 * `facturaci\xF3n_a\xF1o.json`). Node decodes directory entries as UTF-8 and
 * replaces the bytes it cannot decode with U+FFFD, so such a file cannot be
 * opened by the name chokidar reports: without this it would sit in the inbox
 * forever, unread and unreported.
 *
 * The watcher renames such a file in the inbox to its Windows-1252 decoding
 * (`facturación_año.json`, now UTF-8) with one warning that gives both names,
 * and the file then flows like any other; its outbox names are the decoded
 * name's. Windows-1252 decodes every byte sequence, so every such name has a
 * decoding. A file that cannot be renamed (the decoded name exists already, or
 * the folder is read-only) is left where it is, with one warning naming it
 * (bytes escaped); when the file holding its decoded name leaves the inbox
 * (archived), the rename is tried again.
 */
import path from 'node:path';
import { isUtf8 } from 'node:buffer';
import { readdir, rename } from 'node:fs/promises';
import iconv from 'iconv-lite';
import { lstatOrGone } from './file-identity.js';
import { isHiddenName, isStagingName } from './file-names.js';

export interface NameRepairLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** `facturaci\xF3n.json`: the name with every byte outside printable ASCII escaped. */
export function escapedName(raw: Buffer): string {
  let out = '';
  for (const byte of raw)
    out +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
  return out;
}

export class NameRepair {
  private readonly warned = new Set<string>();
  /** Renamed path -> the original name's bytes (hex), for the ledger. */
  private readonly originals = new Map<string, string>();
  /** Decoded paths a file could not be renamed to (the name was taken): tried again when that name goes. */
  private readonly blocked = new Set<string>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly logger: NameRepairLogger,
    private readonly context: (dir: string) => Record<string, unknown>,
  ) {}

  /** Might `name` (as Node decoded it) stand for bytes that are not UTF-8? */
  static suspect(name: string): boolean {
    return name.includes('\uFFFD');
  }

  /** The original name's bytes (hex) of a file this renamed, once. */
  takeOriginal(file: string): string | undefined {
    const hex = this.originals.get(file);
    this.originals.delete(file);
    return hex;
  }

  /** `file` left the inbox: a name that could not take its decoding because of it is renamed now. */
  freed(file: string): Promise<void> | undefined {
    if (!this.blocked.delete(file)) return undefined;
    return this.repair(path.dirname(file));
  }

  /** Renames every entry of `dir` whose name is not UTF-8 to its Windows-1252 decoding. One pass at a time. */
  repair(dir: string): Promise<void> {
    const previous = this.running ?? Promise.resolve();
    const next = previous.then(() => this.repairNow(dir));
    this.running = next;
    return next;
  }

  private async repairNow(dir: string): Promise<void> {
    let entries: Buffer[];
    try {
      entries = await readdir(dir, { encoding: 'buffer' });
    } catch {
      return; // the folder itself is the watcher's to report
    }
    for (const raw of entries) {
      if (isUtf8(raw)) continue;
      const decoded = iconv.decode(raw, 'windows-1252');
      // hidden files are never documents; a staging name is renamed by its writer first
      if (isHiddenName(decoded) || isStagingName(decoded)) continue;
      const escaped = escapedName(raw);
      const from = Buffer.concat([Buffer.from(`${dir}${path.sep}`), raw]);
      const to = path.join(dir, decoded);
      const fields = {
        ...this.context(dir),
        code: 'EDOC_READ_NAME_NOT_UTF8',
        originalName: escaped,
        originalNameHex: raw.toString('hex'),
      };
      try {
        if ((await lstatOrGone(to)) !== undefined)
          throw Object.assign(new Error(`${decoded} exists already`), { code: 'EEXIST' });
        await rename(from, to);
      } catch (err) {
        const key = `${dir}\u0000${raw.toString('hex')}`;
        this.blocked.add(to);
        if (this.warned.has(key)) continue;
        this.warned.add(key);
        this.logger.warn(
          { ...fields, file: path.join(dir, escaped), err },
          `an inbox file name is not UTF-8 and could not be renamed to ${decoded}: the file is left where it is, unread`,
        );
        continue;
      }
      this.warned.delete(`${dir}\u0000${raw.toString('hex')}`);
      this.originals.set(to, raw.toString('hex'));
      this.logger.warn(
        { ...fields, file: to },
        `an inbox file name is not UTF-8 (Windows-1252 / Latin-1 bytes ${escaped}): renamed to ${decoded} and taken as that`,
      );
    }
  }
}
