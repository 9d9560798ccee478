/**
 * multipart/form-data encoding for E3 (POS file upload), built with undici's
 * FormData + Blob and serialised through undici's Response so the boundary,
 * the part headers and the Content-Length are exactly what fetch would send.
 * Encoding up front (instead of streaming the FormData) keeps the request
 * replayable byte for byte and gives the server a Content-Length.
 */
import { Blob } from 'node:buffer';
import { FormData, Response } from 'undici';

export interface MultipartFile {
  content: string | Uint8Array;
  /** Defaults to `document.json`. */
  filename?: string;
  /** Defaults to `application/json`. */
  contentType?: string;
}

export type MultipartValue = string | number | boolean | MultipartFile | undefined;

export interface EncodedMultipart {
  body: Buffer;
  contentType: string;
}

export async function encodeMultipart(
  fields: Readonly<Record<string, MultipartValue>>,
): Promise<EncodedMultipart> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value === 'object') {
      const bytes =
        typeof value.content === 'string' ? Buffer.from(value.content, 'utf8') : value.content;
      const blob = new Blob([bytes], { type: value.contentType ?? 'application/json' });
      form.append(name, blob, value.filename ?? 'document.json');
    } else {
      form.append(name, String(value));
    }
  }
  const response = new Response(form);
  const contentType = response.headers.get('content-type') ?? 'multipart/form-data';
  return { body: Buffer.from(await response.arrayBuffer()), contentType };
}
