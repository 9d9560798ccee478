/**
 * `edoc-bridge show`: the console's file and document pages for people without a browser. Reads the
 * ledger without its lock (like `status`), so it works beside a running daemon, and needs no API key.
 */
import path from 'node:path';
import { isEdocError } from '../../errors.js';
import type { ConsoleDocument, DocumentHistory } from '../../ledger/console-queries.js';
import { openLedger } from '../../ledger/open.js';
import type { LedgerPort } from '../../ledger/port.js';
import type { DocumentRow, FileRow } from '../../ledger/types.js';
import { byIndex } from '../../daemon/action-target.js';
import type { Command, CliIO } from '../command.js';
import { usageError } from '../command.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK } from '../exit-codes.js';
import { renderTable } from '../table.js';

/** Documents printed per file before the table is cut (the JSON output has them all). */
const PAGE = 500;

export const showCommand: Command = {
  name: 'show',
  summary:
    "every document of an input file with its outcome, or one document's history (read-only)",
  usage: 'edoc-bridge show (FILE | --document KEY) [--json] [--config FILE]',
  description: [
    "FILE: the input file's name as dropped (or its outbox name): each file of that name, newest first, with",
    "every document, its key, state, attempts and first error. --document KEY: that document's state and every",
    'event the ledger recorded of it (each attempt, answer, retry and operator word). KEY is the key shown in',
    'result.json (company/kind/prefix/number), its tail (prefix/number), FILE#INDEX or company/kind/INDEX.',
    'Reads the ledger without taking its lock, so it works beside a running daemon; needs no API key.',
  ].join('\n'),
  examples: [
    'edoc-bridge show ventas-2026-11-03.csv',
    'edoc-bridge show --document SETP/990000123',
    'edoc-bridge show compras-0412.json --json | jq \'.files[0].documents[] | select(.state == "failed")\'',
  ],
  options: {
    document: {
      type: 'string',
      valueName: 'KEY',
      description: 'one document: its key, prefix/number, FILE#INDEX or company/kind/INDEX',
    },
    json: { type: 'boolean', description: 'print as JSON' },
  },
  maxPositionals: 1,
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const key = args.string('document');
    const file = args.positionals[0];
    if ((key === undefined) === (file === undefined))
      throw usageError('give an input file name, or --document KEY (not both)');
    if (key === '' || file === '') throw usageError('the file name or key is empty');
    const config = await io.config();
    let ledger: LedgerPort;
    try {
      ledger = await openLedger(config, { readOnly: true, env: io.env });
    } catch (err) {
      if (!isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) throw err;
      io.err(`nothing to show: there is no ledger in ${config.paths.state} yet`);
      return EXIT_NOT_ALL_SUCCEEDED;
    }
    try {
      return file !== undefined
        ? await showFile(ledger, file, args.flag('json'), io)
        : await showDocument(ledger, key ?? '', args.flag('json'), io);
    } finally {
      await ledger.close();
    }
  },
};

function firstError(d: DocumentRow): string {
  const p = [...d.errors, ...d.problems][0];
  return p === undefined
    ? ''
    : `${p.code === undefined ? '' : `${p.code}: `}${p.message}`.slice(0, 120);
}

function documentJson(d: DocumentRow): Record<string, unknown> {
  return {
    id: d.id,
    index: d.index,
    key: d.key,
    state: d.state,
    doubt: d.doubt,
    attempts: d.attempts,
    resultCode: d.resultCode,
    httpStatus: d.httpStatus,
    errors: [...d.errors, ...d.problems],
    warnings: d.warnings,
    source: d.source,
    updatedAt: d.updatedAt,
  };
}

function fileJson(f: FileRow): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    path: f.path,
    company: f.company,
    kind: f.kind,
    state: f.state,
    error: f.error,
    startedAt: f.startedAt,
    finishedAt: f.finishedAt,
    archivedPath: f.archivedPath,
  };
}

async function showFile(
  ledger: LedgerPort,
  name: string,
  json: boolean,
  io: CliIO,
): Promise<number> {
  // a path as typed (inbox/invoice/x.csv) is not the absolute path the ledger keeps: its name then
  const byName = await ledger.console.filesNamed(name);
  const files =
    byName.length > 0 || path.basename(name) === name
      ? byName
      : await ledger.console.filesNamed(path.basename(name));
  if (files.length === 0) {
    io.err(
      `no input file named ${name} in the ledger (edoc-bridge status lists the files in progress)`,
    );
    return EXIT_NOT_ALL_SUCCEEDED;
  }
  if (json) {
    // one line per document, streamed: a file of 200,000 documents is never one string in memory
    io.out('{"files": [');
    for (const [i, f] of files.entries()) {
      io.out(
        `${JSON.stringify({ ...fileJson(f), progress: await ledger.fileProgress(f.id) }).slice(0, -1)}, "documents": [`,
      );
      let previous: string | undefined;
      for await (const d of ledger.iterateFileDocuments(f.id)) {
        if (previous !== undefined) io.out(`${previous},`);
        previous = JSON.stringify(documentJson(d));
      }
      if (previous !== undefined) io.out(previous);
      io.out(i === files.length - 1 ? ']}' : ']},');
    }
    io.out(']}');
    return EXIT_OK;
  }
  for (const [i, f] of files.entries()) {
    if (i > 0) io.out('');
    const progress = await ledger.fileProgress(f.id);
    const counts = Object.entries(progress.counts)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
    io.out(
      `${f.name} — ${f.company}/${f.kind}, ${f.state}, taken ${new Date(f.startedAt).toISOString()}: ${progress.total} document(s)${counts === '' ? '' : `: ${counts}`}`,
    );
    if (f.error !== null) io.out(`file error: ${f.error.code}: ${f.error.message}`);
    const docs: DocumentRow[] = [];
    for await (const d of ledger.iterateFileDocuments(f.id)) {
      if (docs.length === PAGE) break;
      docs.push(d);
    }
    if (docs.length === 0) continue;
    for (const line of renderTable(docs, [
      { header: '#', value: (d) => String(d.index), align: 'right' },
      { header: 'key', value: (d) => d.key ?? `${f.name}#${d.index}` },
      { header: 'state', value: (d) => (d.doubt === null ? d.state : `${d.state} (${d.doubt})`) },
      { header: 'attempts', value: (d) => String(d.attempts), align: 'right' },
      { header: 'first error', value: firstError },
    ]))
      io.out(line);
    if (progress.total > docs.length)
      io.out(
        `… and ${progress.total - docs.length} more (edoc-bridge show ${f.name} --json has them all)`,
      );
  }
  return EXIT_OK;
}

/** The documents KEY names: by number through the key index, or by place (FILE#INDEX, company/kind/INDEX). */
async function findDocuments(ledger: LedgerPort, key: string): Promise<ConsoleDocument[]> {
  const place = byIndex(key);
  if (place?.file !== undefined) {
    const rows: ConsoleDocument[] = [];
    for (const f of await ledger.console.filesNamed(place.file)) {
      rows.push(
        ...(await ledger.console.fileDocuments(f.id, { after: place.index - 1, limit: 1 })).rows,
      );
    }
    return rows.filter((d) => d.index === place.index);
  }
  if (place !== undefined) {
    // company/kind/INDEX: a document without its own number, in any file of that company and kind
    const found: ConsoleDocument[] = [];
    for (const state of ['in-doubt', 'failed'] as const) {
      let after: number | undefined;
      do {
        const page = await ledger.console.attention(state, { after, limit: 200 });
        found.push(
          ...page.rows.filter(
            (d) =>
              d.index === place.index &&
              d.company === place.company &&
              d.kind === place.kind &&
              d.key === null,
          ),
        );
        after = page.next;
      } while (after !== undefined);
    }
    return found;
  }
  return ledger.console.byKey(key, 50);
}

async function showDocument(
  ledger: LedgerPort,
  key: string,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const histories: DocumentHistory[] = [];
  for (const d of await findDocuments(ledger, key)) {
    const h = await ledger.console.history(d.id);
    if (h !== undefined) histories.push(h);
  }
  if (histories.length === 0) {
    io.err(
      `no document ${key} in the ledger (give its key as result.json shows it, prefix/number, or FILE#INDEX)`,
    );
    return EXIT_NOT_ALL_SUCCEEDED;
  }
  if (json) {
    io.out(
      JSON.stringify(
        {
          documents: histories.map((h) => ({
            ...documentJson(h.document),
            company: h.document.company,
            kind: h.document.kind,
            customer: h.document.customer,
            file: h.file === undefined ? null : fileJson(h.file),
            events: h.events,
            eventsCut: h.eventsCut,
          })),
        },
        null,
        2,
      ),
    );
    return EXIT_OK;
  }
  for (const [i, h] of histories.entries()) {
    const d = h.document;
    if (i > 0) io.out('');
    io.out(
      `${d.key ?? `${d.file}#${d.index}`} — ${d.company}/${d.kind}, document #${d.index} of ${d.file}`,
    );
    io.out(
      `state: ${d.state}${d.doubt === null ? '' : ` (${d.doubt})`}, ${d.attempts} attempt(s)${d.customer === null ? '' : `, customer ${d.customer}`}`,
    );
    const error = firstError(d);
    if (error !== '') io.out(`error: ${error}`);
    for (const w of d.warnings) io.out(`warning: ${w.slice(0, 200)}`);
    io.out('');
    for (const line of renderTable(h.events, [
      { header: 'at', value: (e) => new Date(e.at).toISOString() },
      { header: 'event', value: (e) => e.type },
      {
        header: 'details',
        value: (e) => (e.data === null ? '' : JSON.stringify(e.data).slice(0, 160)),
      },
    ]))
      io.out(line);
    if (h.eventsCut) io.out(`(only the first ${h.events.length} events; --json has the same)`);
  }
  return EXIT_OK;
}
