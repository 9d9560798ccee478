import iconv from 'iconv-lite';
import { CHANGED_AFTER_SEND } from '../ledger/types.js';
import type { DocumentRow, FileRow } from '../ledger/types.js';
import { AtomicWriter, removeDurably } from './atomic-write.js';
import { isFailedDuplicate } from './errors-csv.js';

/**
 * States whose originals go to the retry file: fix and drop back. `in-doubt` is left out on purpose:
 * it may have been issued already, and resending it from a file could issue it twice; `duplicate`
 * was issued earlier — except a number clash (another document holds its number: not issued, it goes to
 * be given a new number) and a corrected copy of an issued number (EDOC_ISSUED_OTHER_CONTENT: what it now
 * says was never issued; it goes once the issued one is corrected by a note): isFailedDuplicate.
 */
export const RETRY_STATES: ReadonlySet<string> = new Set(['rejected', 'invalid', 'failed']);

interface Encoder {
  encode(text: string): Buffer;
}

/**
 * The file's original encoding as the reader recorded it; `utf-8-bom` (what src/read/csv-encoding.ts
 * records for a UTF-8 input that started with a BOM, or any name with "bom") writes the BOM back
 * first, since the decoded header and rows no longer hold it; plain `utf-8` writes none.
 */
function encoderFor(encoding: string | null): Encoder {
  const name = (encoding ?? 'utf8').toLowerCase();
  const bom = /bom/.test(name);
  const base = bom ? 'utf8' : name;
  const enc = iconv.encodingExists(base) ? base : 'utf8';
  let first = true;
  return {
    encode(text: string): Buffer {
      const out = iconv.encode(text, enc, { addBOM: bom && first });
      first = false;
      return out;
    },
  };
}

function stripEol(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/**
 * Streams NAME.retry.<ext> in the input's own format: `.json` an array of the original objects,
 * `.jsonl` the original lines, CSV/TXT the original header line and rows in the original encoding
 * (the ledger keeps each document's raw text, and the file's format, encoding and header).
 */
export class RetryFileWriter {
  private out: AtomicWriter | undefined;
  private count = 0;
  private readonly encoder: Encoder;
  private eol: string | undefined;

  constructor(
    readonly target: string,
    private readonly file: Pick<FileRow, 'format' | 'encoding' | 'header'>,
  ) {
    const delimited = file.format !== 'json' && file.format !== 'jsonl';
    this.encoder = delimited ? encoderFor(file.encoding) : encoderFor('utf8');
    const h = file.header ?? '';
    if (h.endsWith('\r\n')) this.eol = '\r\n';
    else if (h.endsWith('\n')) this.eol = '\n';
  }

  private lineEnd(raw: string): string {
    // the header's own terminator, else the first one seen inside a document, else CRLF (Windows ERPs)
    this.eol ??= raw.includes('\r\n') ? '\r\n' : raw.includes('\n') ? '\n' : undefined;
    return this.eol ?? '\r\n';
  }

  private async open(firstRaw: string): Promise<AtomicWriter> {
    if (this.out) return this.out;
    this.out = await AtomicWriter.create(this.target);
    if (this.file.format === 'json') await this.out.write('[\n');
    else if (this.file.format !== 'jsonl' && this.file.header !== null) {
      const h = this.file.header;
      const eol = this.lineEnd(firstRaw);
      await this.out.write(this.encoder.encode(/\r?\n$/.test(h) ? h : h + eol));
    }
    return this.out;
  }

  async add(doc: DocumentRow): Promise<void> {
    if ((!RETRY_STATES.has(doc.state) && !isFailedDuplicate(doc)) || doc.raw === '') return;
    // held back because the file changed after sending began: its new content sends it, not a retry of the old text
    if (doc.errors.some((e) => e.code === CHANGED_AFTER_SEND)) return;
    // read from a file that changed or went away (taken unfinished and written on afterwards, or deleted while
    // read): a retry file of part of it would send part of the export; the file itself is what to drop again
    if (doc.errors.some((e) => e.code === 'EDOC_READ_CHANGED')) return;
    // held because the same content was taken for another company: nothing in it is to fix, and a copy dropped
    // back (other bytes, so not held again) would issue the export under this company too; the operator's way
    // to send it here as well is `edoc-bridge retry --file NAME --other-company`
    if (doc.problems.some((p) => p.code === 'EDOC_LEDGER_OTHER_COMPANY')) return;
    // failed, but an attempt may have reached the service: it may be issued, and a fixed copy sent under another
    // number would issue it twice (EDOC_SUBMIT_MAYBE_ISSUED); `edoc-bridge retry` re-queues it safely
    if (doc.state === 'failed' && doc.maybeDelivered) return;
    const out = await this.open(doc.raw);
    if (this.file.format === 'json') {
      await out.write(`${this.count === 0 ? '' : ',\n'}${stripEol(doc.raw)}`);
    } else if (this.file.format === 'jsonl') {
      await out.write(`${stripEol(doc.raw)}\n`);
    } else {
      const eol = this.lineEnd(doc.raw);
      await out.write(this.encoder.encode(/\r?\n$/.test(doc.raw) ? doc.raw : doc.raw + eol));
    }
    this.count++;
  }

  get documents(): number {
    return this.count;
  }

  /** Returns true when the file exists afterwards; removes a stale one when nothing needs retrying. */
  async commit(): Promise<boolean> {
    if (!this.out) {
      await removeDurably(this.target);
      return false;
    }
    if (this.file.format === 'json') await this.out.write('\n]\n');
    await this.out.commit();
    return true;
  }

  async abort(): Promise<void> {
    await this.out?.abort();
  }
}
