/**
 * The record layer of an Excel 97-2003 workbook stream (BIFF8, [MS-XLS] 2.4), under read/xls-rows.ts:
 * the record types read, records with their Continue records attached, the cursor that reads
 * XLUnicodeString text across Continue boundaries, RK numbers and the BoolErr error texts.
 */
import { SheetFault } from './zip-parts.js';

export const BOF = 0x0809;
export const EOF = 0x000a;
export const CONTINUE = 0x003c;
export const FILEPASS = 0x002f;
export const BOUNDSHEET = 0x0085;
export const DATEMODE = 0x0022;
export const FORMAT = 0x041e;
export const XF = 0x00e0;
export const SST = 0x00fc;
export const LABELSST = 0x00fd;
export const LABEL = 0x0204;
export const NUMBER = 0x0203;
export const RK = 0x027e;
export const MULRK = 0x00bd;
export const BOOLERR = 0x0205;
export const FORMULA = 0x0006;
export const STRING = 0x0207;
/** RecalcId: the calculation engine that last computed the formulas (Excel 2000 on, LibreOffice). */
export const RECALCID = 0x01c1;
/** Uncalced: formulas were pending recalculation when the sheet was saved. */
export const UNCALCED = 0x005e;

export interface BiffRecord {
  type: number;
  data: Buffer;
  offset: number;
  continues: Buffer[];
}

/** Records from `start`; Continue records are attached to the record they continue. */
export function* records(stream: Buffer, start: number): Generator<BiffRecord> {
  let pos = start;
  let pending: BiffRecord | undefined;
  while (pos + 4 <= stream.length) {
    const type = stream.readUInt16LE(pos);
    const len = stream.readUInt16LE(pos + 2);
    if (pos + 4 + len > stream.length)
      throw new SheetFault(
        'corrupt',
        `a record at byte ${pos} runs past the end of the workbook stream`,
      );
    const data = stream.subarray(pos + 4, pos + 4 + len);
    if (type === CONTINUE && pending !== undefined) {
      pending.continues.push(data);
    } else {
      if (pending !== undefined) yield pending;
      pending = { type, data, offset: pos, continues: [] };
      if (type === EOF) {
        yield pending;
        return;
      }
    }
    pos += 4 + len;
  }
  if (pending !== undefined) yield pending;
}

/** Reads XLUnicodeString-shaped text across Continue boundaries (each continued run of characters starts with a new flags byte). */
export class Cursor {
  private seg = 0;
  private pos = 0;
  constructor(private readonly segments: Buffer[]) {}

  private ensure(): Buffer {
    while (this.seg < this.segments.length && this.pos >= this.segments[this.seg].length) {
      this.seg++;
      this.pos = 0;
    }
    if (this.seg >= this.segments.length)
      throw new SheetFault('corrupt', 'a string runs past the end of its record');
    return this.segments[this.seg];
  }

  u8(): number {
    const b = this.ensure();
    return b[this.pos++];
  }
  u16(): number {
    return this.u8() | (this.u8() << 8);
  }
  u32(): number {
    return (this.u16() + this.u16() * 65536) >>> 0;
  }
  skip(n: number): void {
    for (let left = n; left > 0;) {
      const b = this.ensure();
      const step = Math.min(left, b.length - this.pos);
      this.pos += step;
      left -= step;
    }
  }

  chars(count: number, highByte: boolean): string {
    let out = '';
    let wide = highByte;
    let left = count;
    while (left > 0) {
      if (this.pos >= this.segments[this.seg].length) {
        this.ensure();
        wide = (this.u8() & 0x01) === 1; // a string continued in a Continue record restates its width
      }
      const b = this.segments[this.seg];
      const fit = Math.min(left, Math.floor((b.length - this.pos) / (wide ? 2 : 1)));
      if (fit === 0) throw new SheetFault('corrupt', 'a string is cut inside a character');
      out += wide
        ? b.toString('utf16le', this.pos, this.pos + fit * 2)
        : b.toString('latin1', this.pos, this.pos + fit);
      this.pos += fit * (wide ? 2 : 1);
      left -= fit;
    }
    return out;
  }

  /** XLUnicodeRichExtendedString (SST) or XLUnicodeString (`lengthBytes` 2) / ShortXLUnicodeString (1). */
  unicodeString(lengthBytes: 1 | 2 = 2): string {
    const cch = lengthBytes === 1 ? this.u8() : this.u16();
    const flags = this.u8();
    const runs = flags & 0x08 ? this.u16() : 0;
    const ext = flags & 0x04 ? this.u32() : 0;
    const text = this.chars(cch, (flags & 0x01) === 1);
    this.skip(runs * 4 + ext);
    return text;
  }
}

export function rkValue(rk: number): number {
  let n: number;
  if (rk & 0x02) {
    n = rk >> 2;
  } else {
    const b = Buffer.alloc(8);
    b.writeInt32LE(rk & 0xfffffffc, 4);
    n = b.readDoubleLE(0);
  }
  return rk & 0x01 ? n / 100 : n;
}

export const BOOL_ERRORS: Record<number, string> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
};
