/**
 * `.json` input: one request object, or an array of them, streamed element by
 * element (json-splitter.ts). Anything that makes the file unreadable as a
 * whole — broken element, trailing text, a top level that is not an object or
 * an array, nesting deeper than 1000 — is a file-level EDOC_READ_JSON with line
 * and column. A well-formed element that is not an object is a document with a
 * problem, so the other elements still flow.
 */
import { EdocError } from '../errors.js';
import { JsonSplitter, locateInElement, type SplitElement } from './json-splitter.js';
import type { SourceDocument } from './source-document.js';

export interface JsonReadOptions {
  maxDepth?: number;
  maxElementChars?: number;
}

export async function* readJsonDocuments(
  chunks: AsyncIterable<string>,
  file: string,
  options: JsonReadOptions = {},
): AsyncGenerator<SourceDocument> {
  const splitter = new JsonSplitter(file, options);
  let index = 0;
  for await (const chunk of chunks) {
    for (const element of splitter.push(chunk))
      yield toDocument(element, index++, file, splitter.shape);
  }
  if (splitter.end().empty) {
    throw new EdocError('EDOC_READ_EMPTY', `${file} holds no JSON document`, { file });
  }
}

function toDocument(
  element: SplitElement,
  index: number,
  file: string,
  shape: 'array' | 'object' | undefined,
): SourceDocument {
  const lines =
    element.startLine === element.endLine
      ? [element.startLine]
      : [element.startLine, element.endLine];
  const request = parseElement(element, file);
  const base = { index, source: { lines }, raw: element.text };
  if (typeof request === 'object' && request !== null && !Array.isArray(request)) {
    return { ...base, request, requestFromRaw: true, problems: [] };
  }
  const what = shape === 'array' ? `element ${index + 1} of the array` : 'the document';
  return {
    ...base,
    problems: [
      {
        code: 'EDOC_READ_JSON',
        path: '',
        message: `${what} (line ${element.startLine}) is not a JSON object`,
      },
    ],
  };
}

function parseElement(element: SplitElement, file: string): unknown {
  try {
    return JSON.parse(element.text) as unknown;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const match = /position (\d+)/.exec(message);
    const position = match === null ? element.text.length : Number(match[1]);
    const { line, column } = locateInElement(
      element.text,
      position,
      element.startLine,
      element.startColumn,
    );
    // V8 quotes the text around the fault: not repeated (it may be anything, an API key included)
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/\s*\(line \d+ column \d+\)$/, '')
      .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
    throw new EdocError(
      'EDOC_READ_JSON',
      `invalid JSON at line ${line}, column ${column}: ${reason}`,
      { file, line, col: column },
      { cause: err },
    );
  }
}
