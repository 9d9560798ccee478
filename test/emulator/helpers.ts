/** Shared helpers of the emulator tests: a fresh emulator per test, calls by operation id, fixtures. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  pathFor,
  ENDPOINTS,
  type OperationId,
  type PathForm,
} from '../../src/service/endpoints.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { SeedInput } from '../../src/emulator/seed.js';
import {
  seedFile,
  startTestEmulator,
  type TestEmulatorOptions,
} from '../helpers/daemon-harness.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SEED_FILE = `${ROOT}config/emulator-seed.json`;
export const TODAY = '2026-11-22';
export const AUTH = { 'x-api-key': 'demo-key-1001', 'x-company-id': '1001' } as const;
export const BAD_KEY = { 'x-api-key': 'wrong-key', 'x-company-id': '1001' } as const;

type Json = Record<string, unknown>;

export function fixture(name: string): Json {
  return JSON.parse(readFileSync(`${ROOT}test/fixtures/emulator/${name}`, 'utf8')) as Json;
}

/** The shipped seed with today pinned, optionally changed by `edit`. */
export function testSeed(edit?: (seed: Json & { companies: Json[] }) => void): SeedInput {
  return seedFile<Json & { companies: Json[] }>(SEED_FILE, (seed) => {
    seed.today = TODAY;
    edit?.(seed);
  }) as SeedInput;
}

export async function emulator(
  edit?: (seed: Json & { companies: Json[] }) => void,
  options: TestEmulatorOptions = {},
): Promise<RunningEmulator> {
  return (await startTestEmulator(testSeed(edit), {}, options)).running;
}

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  form?: FormData;
  query?: Record<string, string>;
  pathForm?: PathForm;
  tipo?: string;
}

export interface CallResult {
  /** The path the request went to (without the query). */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function call(
  emu: { url: string },
  op: OperationId,
  options: CallOptions = {},
): Promise<CallResult> {
  const def = ENDPOINTS[op];
  const path =
    op === 'E3'
      ? def.primary.replace('{tipo}', options.tipo ?? 'pos')
      : pathFor(op, options.pathForm ?? 'primary');
  const url = new URL(emu.url + path);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...options.headers };
  let body: string | FormData | undefined;
  if (options.form !== undefined) body = options.form;
  else if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(url, { method: def.method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { path: url.pathname, status: res.status, headers: res.headers, body: parsed, text };
}

export function posForm(
  fields: Record<string, string>,
  content: unknown = fixture('pos-content.json'),
): FormData {
  const form = new FormData();
  form.set('file', new Blob([JSON.stringify(content)], { type: 'application/json' }), 'pos.json');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

export async function documents(emu: { url: string }, query = ''): Promise<Json[]> {
  const res = await fetch(`${emu.url}/_emulator/documents${query}`);
  return ((await res.json()) as { documents: Json[] }).documents;
}

export async function setFaults(emu: { url: string }, faults: Json): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator/faults`, {
    method: 'POST',
    body: JSON.stringify(faults),
  });
  if (res.status !== 200) throw new Error(`faults refused: ${await res.text()}`);
}

export function envelopeOf(result: CallResult): {
  Errors: string[];
  IsValid: boolean;
  ResultCode: number;
  Warning: string[];
  ResultData: unknown;
} {
  return result.body as {
    Errors: string[];
    IsValid: boolean;
    ResultCode: number;
    Warning: string[];
    ResultData: unknown;
  };
}
