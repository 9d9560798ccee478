import type fsp from 'node:fs/promises';

/**
 * Writes all of `data` at the handle's position. A write to a nearly full disk writes only part of its
 * buffer and reports success (8 KiB of 64 written, no error); the next write then fails with ENOSPC.
 * Taking the first answer as the whole write committed a report torn at the last free byte.
 */
export async function writeWhole(fh: fsp.FileHandle, data: Buffer): Promise<void> {
  for (let at = 0; at < data.length;) {
    const { bytesWritten } = await fh.write(data, at, data.length - at);
    if (bytesWritten <= 0) {
      const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
      err.code = 'ENOSPC';
      throw err;
    }
    at += bytesWritten;
  }
}
