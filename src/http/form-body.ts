/** A POST's body as an urlencoded form, read up to a size limit (a bigger one is refused, not buffered). */
import type { IncomingMessage } from 'node:http';

export type FormRead =
  { ok: true; form: URLSearchParams } | { ok: false; status: 413 | 415 | 400; message: string };

/** @defaultValue 64 KiB: the console's forms carry a few short fields. */
export const MAX_FORM_BYTES = 64 * 1_024;

export async function readForm(req: IncomingMessage, maxBytes = MAX_FORM_BYTES): Promise<FormRead> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared > maxBytes)
    return { ok: false, status: 413, message: `the body is larger than ${maxBytes} bytes` };
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes)
      return { ok: false, status: 413, message: `the body is larger than ${maxBytes} bytes` };
    chunks.push(chunk);
  }
  if (size === 0) return { ok: true, form: new URLSearchParams() };
  if (type !== 'application/x-www-form-urlencoded') {
    return {
      ok: false,
      status: 415,
      message: 'send the form as application/x-www-form-urlencoded',
    };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return { ok: true, form: new URLSearchParams(text) };
}
