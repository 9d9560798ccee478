/**
 * The parts of a zip package (.xlsx) through yauzl: the central directory is
 * read once, then each part is streamed (inflated as it is read, never whole)
 * or, for the small parts (workbook, relationships, styles), read as text up to
 * a cap. Every zip fault (not a zip, a truncated file, a bad CRC, an encrypted
 * entry, a part larger than its cap) is a SheetFault the caller turns into a
 * file-level error.
 */
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** A reason a spreadsheet cannot be read, before it is named with its file (sheet-source.ts). */
export class SheetFault extends Error {
  constructor(
    readonly code: 'corrupt' | 'encrypted' | 'sheet' | 'unsupported' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

export interface ZipPackage {
  has(name: string): boolean;
  /** The part's text (UTF-8), refused past `maxBytes` uncompressed. */
  text(name: string, maxBytes: number): Promise<string>;
  stream(name: string): Promise<Readable>;
  close(): void;
}

function faulted(err: unknown): SheetFault {
  return err instanceof SheetFault
    ? err
    : new SheetFault('corrupt', `it is not a readable .xlsx package (${(err as Error).message})`);
}

export async function openZip(file: string): Promise<ZipPackage> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true },
      (err, z) => {
        if (err !== null && err !== undefined) reject(faulted(err));
        else resolve(z);
      },
    );
  });
  const entries = new Map<string, yauzl.Entry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.set(entry.fileName.replace(/^\//, '').toLowerCase(), entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (err) => reject(faulted(err)));
      zip.readEntry();
    });
  } catch (err) {
    zip.close();
    throw err;
  }
  const entryOf = (name: string): yauzl.Entry => {
    const entry = entries.get(name.toLowerCase());
    if (entry === undefined) throw new SheetFault('corrupt', `the package has no part ${name}`);
    if (entry.isEncrypted()) throw new SheetFault('encrypted', `its part ${name} is encrypted`);
    return entry;
  };
  const stream = (name: string): Promise<Readable> =>
    new Promise((resolve, reject) => {
      let entry: yauzl.Entry;
      try {
        entry = entryOf(name);
      } catch (err) {
        reject(err as Error);
        return;
      }
      zip.openReadStream(entry, (err, s) => {
        if (err !== null && err !== undefined) reject(faulted(err));
        else resolve(s);
      });
    });
  return {
    has: (name) => entries.has(name.toLowerCase()),
    stream,
    async text(name, maxBytes) {
      if (entryOf(name).uncompressedSize > maxBytes)
        throw new SheetFault('corrupt', `its part ${name} is larger than ${maxBytes} bytes`);
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of await stream(name)) chunks.push(chunk as Buffer);
      } catch (err) {
        throw faulted(err);
      }
      return Buffer.concat(chunks).toString('utf8');
    },
    close: () => zip.close(),
  };
}
