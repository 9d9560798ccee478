/**
 * The documents of the cluster torture (test/torture/scenarios/cluster.ts): per company, numbered invoices
 * over JSONL and CSV files, and documents the service numbers — support documents without a number and POS
 * without a number, each with a unique marker (in the first line's description, in the POS notes) so the
 * emulator's records show how often each one was issued. Files of all companies are interleaved, so every
 * node has work whichever companies it holds.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { TestCompany } from '../../helpers/daemon-harness.js';
import { invoice, jsonlText, jsonText, pos, supportDocument } from '../../helpers/documents.js';
import { salesCsv, type MappedProject } from '../../helpers/torture-project.js';

export const FIRST_NUMBER = 990_000_001;
export const MARKER = /\[CP-[A-Za-z0-9-]+\]/;

export interface PlannedFile {
  company: TestCompany;
  kind: 'invoice' | 'support-document' | 'pos';
  name: string;
  content: string;
  /** Numbered invoices: their numbers, in file order. */
  numbers: number[];
  /** Service-numbered documents: their markers, in file order. */
  markers: string[];
}

export interface PlanOptions {
  numberedPerCompany: number;
  invoiceFilesPerCompany: number;
  /** Support documents and POS without a number, per company (half each). */
  serviceNumberedPerCompany: number;
  serviceFilesPerCompany: number;
}

function split(total: number, parts: number): number[] {
  return Array.from(
    { length: parts },
    (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0),
  );
}

/** A POS document without its number, the marker in its notes. */
function unnumberedPos(marker: string): Record<string, unknown> {
  const doc = pos(0);
  const documento = doc.documento as Record<string, unknown>;
  delete documento.numeroDocumento;
  documento.notas = [`Venta de mostrador ${marker}`];
  return doc;
}

export function planFiles(companies: readonly TestCompany[], o: PlanOptions): PlannedFile[] {
  const perCompany: PlannedFile[][] = companies.map((company) => {
    const files: PlannedFile[] = [];
    let next = FIRST_NUMBER;
    for (const [i, n] of split(o.numberedPerCompany, o.invoiceFilesPerCompany).entries()) {
      const numbers = Array.from({ length: n }, (_, k) => next + k);
      next += n;
      // CSV of two lines per document every third CSV, so grouping rows is crashed too
      const csv = i % 2 === 1;
      files.push({
        company,
        kind: 'invoice',
        name: csv ? `ventas ${company.alias}-${i}.csv` : `lote-${company.alias}-${i}.jsonl`,
        content: csv
          ? salesCsv(numbers, i % 3 === 0 ? 2 : 1, company.alias)
          : jsonlText(numbers.map((x) => invoice(x, company))),
        numbers,
        markers: [],
      });
    }
    for (const [i, n] of split(o.serviceNumberedPerCompany, o.serviceFilesPerCompany).entries()) {
      const support = i % 2 === 0;
      const markers = Array.from(
        { length: n },
        (_, k) => `[CP-${company.alias}-${support ? 'S' : 'P'}${i}-${k}]`,
      );
      files.push(
        support
          ? {
              company,
              kind: 'support-document',
              name: `soporte-${company.alias}-${i}.jsonl`,
              numbers: [],
              markers,
              content: jsonlText(markers.map((m) => supportDocument(undefined, m))),
            }
          : {
              company,
              kind: 'pos',
              name: `pos-${company.alias}-${i}.json`,
              numbers: [],
              markers,
              content: jsonText(markers.map((m) => unnumberedPos(m))),
            },
      );
    }
    return files;
  });
  const out: PlannedFile[] = [];
  for (let i = 0; perCompany.some((f) => i < f.length); i++)
    for (const f of perCompany) if (i < f.length) out.push(f[i]);
  return out;
}

/** The marker a request carries (support document line or POS notes, as the emulator stored it). */
export function markerOf(request: unknown): string | undefined {
  const r = request as
    | {
        Lines?: { Item?: { Description?: string } }[];
        content?: { documento?: { notas?: string[] } };
      }
    | undefined;
  const text = `${r?.Lines?.[0]?.Item?.Description ?? ''} ${(r?.content?.documento?.notas ?? []).join(' ')}`;
  return MARKER.exec(text)?.[0];
}

export interface OutboxLook {
  /** result.json files naming this input (one expected), and their names. */
  results: number;
  resultNames: string[];
  /** Copies of the original in the archive (one expected), and whether one is still in the inbox. */
  archived: number;
  inInbox: boolean;
}

/** How often the outbox reports `file` and how often its original sits in the archive (by content). */
export async function outboxLook(project: MappedProject, file: PlannedFile): Promise<OutboxLook> {
  const outbox = project.outbox(file.kind, file.company.alias);
  const names = await readdir(outbox).catch(() => [] as string[]);
  const resultNames: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.result.json'))) {
    const r = JSON.parse(await readFile(path.join(outbox, name), 'utf8')) as {
      file?: string;
      startedAt?: string;
      finishedAt?: string | null;
      counts?: unknown;
    };
    if (r.file === file.name)
      resultNames.push(
        `${name} (started ${r.startedAt}, finished ${r.finishedAt ?? 'no'}, ${JSON.stringify(r.counts)})`,
      );
  }
  const sha = createHash('sha256').update(file.content).digest('hex');
  const ext = path.extname(file.name);
  const stem = file.name.slice(0, -ext.length);
  const archive = path.join(outbox, 'archive');
  let archived = 0;
  for (const name of await readdir(archive).catch(() => [] as string[])) {
    if (name !== file.name && !(name.startsWith(`${stem} (`) && name.endsWith(`)${ext}`))) continue;
    const bytes = await readFile(path.join(archive, name));
    if (createHash('sha256').update(bytes).digest('hex') === sha) archived++;
  }
  const inbox = await readdir(project.inbox(file.kind, file.company.alias)).catch(
    () => [] as string[],
  );
  return { results: resultNames.length, resultNames, archived, inInbox: inbox.includes(file.name) };
}
