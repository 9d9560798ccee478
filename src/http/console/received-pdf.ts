/**
 * Serves a received document's PDF, confined to that company's received folder: the ledger's file list
 * came from the service and the company from the address, so neither may lead outside it (`..`,
 * absolute paths, a symlink out of the folder).
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServerResponse } from 'node:http';

/** The real path of `relative` under `dir`, or undefined when it is not a regular file inside it. */
export async function confinedFile(dir: string, relative: string): Promise<string | undefined> {
  if (relative === '' || relative.includes('\0') || path.isAbsolute(relative)) return undefined;
  try {
    const root = await realpath(dir);
    const file = await realpath(path.resolve(root, relative));
    if (!file.startsWith(`${root}${path.sep}`)) return undefined;
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A download name without quotes, slashes or control characters (the header must stay one safe line). */
function downloadName(name: string): string {
  const ascii = path.basename(name).replace(/[^\x20-\x7e]|["\\;/]/g, '_');
  return ascii === '' ? 'document.pdf' : ascii;
}

export async function sendPdf(res: ServerResponse, file: string, name: string): Promise<void> {
  const size = (await stat(file)).size;
  res.writeHead(200, {
    'Content-Type': 'application/pdf',
    'Content-Length': size,
    'Content-Disposition': `attachment; filename="${downloadName(name)}"`,
  });
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(file);
    stream.on('error', reject);
    res.on('close', resolve);
    stream.pipe(res);
  });
}
