/**
 * What `edoc-bridge validate` does with its files (commands/validate.ts): each file, or each set of two
 * (map/parts.ts), read, mapped and checked, one JSON line per document, or one `{ file, error }` line for
 * a unit that cannot be read. Plain data in, lines out, so it runs on a worker thread (validate-worker.ts)
 * as well as in-process; `mark` is told the unit (from 1) and row being mapped (read/row-mark.ts).
 */
import path from 'node:path';
import { EdocError, isEdocError } from '../errors.js';
import { documentKey, formatKey } from '../kinds/document-key.js';
import { posTipoFor, type DocumentKind } from '../kinds/index.js';
import type { PosSending } from '../kinds/descriptor.js';
import { validateDocument } from '../kinds/validate-document.js';
import { placed } from '../map/request-place.js';
import { SecretScrubber } from '../log/secrets.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import { groupSets } from '../map/parts.js';
import type { CsvSourceContext } from '../read/csv-source.js';
import { formatOf, openSource } from '../read/open-source.js';
import type { RowMark } from '../read/row-mark.js';
import { noDocumentsError } from '../read/no-documents.js';
import { notAPart } from '../read/set-part-errors.js';
import { openSetSource } from '../read/set-source.js';
import type { OpenedSource } from '../read/source-document.js';
import { distinctProblems, type Problem } from '../validate/problem.js';

/** The formats a mapping reads (a delimited export, a spreadsheet's rows). */
export const DELIMITED = ['csv', 'xlsx', 'xls'];

export interface ValidateParams {
  files: string[];
  kind: DocumentKind;
  company: { alias: string; nit: string };
  mapping?: Mapping;
  master?: MasterTables;
  maxRecordBytes: number;
  /** Colombia's date the documents are checked against. */
  today: string;
  /** The `kinds.pos` settings: the E3 `tipo` a POS file is sent as (from them or the file's name). */
  pos?: PosSending;
  /** The configuration's secrets: removed from an error line (it may quote the file). */
  secrets: string[];
}

export interface ValidateSink {
  out(line: string): void;
  err(line: string): void;
}

interface Unit {
  /** The file, or the set's name (map/parts.ts setName). */
  name: string;
  set: boolean;
  open(ctx: CsvSourceContext): Promise<OpenedSource>;
}

/** The names of the units `validateUnits` reads, in order (a file, or a set's name). */
export function unitNames(p: ValidateParams): string[] {
  return unitsOf(p).map((u) => u.name);
}

/** The error line of a unit that cannot be read (stdout), and its message (stderr), secrets removed. */
export function unitError(
  p: ValidateParams,
  file: string,
  err: EdocError,
  sink: ValidateSink,
): void {
  const secrets = new SecretScrubber(p.secrets);
  sink.out(
    secrets.scrub(
      JSON.stringify({ file, error: { code: err.code, message: err.message, ...err.context } }),
    ),
  );
  sink.err(secrets.scrub(`${err.code}: ${err.message}`));
}

/** Reads units `from` on: whether one failed (a document with problems, or a unit that cannot be read). */
export async function validateUnits(
  p: ValidateParams,
  sink: ValidateSink,
  from = 0,
  mark?: (unit: number) => RowMark,
): Promise<boolean> {
  const units = unitsOf(p);
  let failed = false;
  for (let u = from; u < units.length; u++) {
    const unit = units[u];
    const file = unit.name;
    const named = units.length > 1 || unit.set ? { file } : {};
    let invalid = 0;
    let count = 0;
    try {
      const marked = mark?.(u + 1);
      const opened = await unit.open({
        kind: p.kind,
        company: p.company,
        ...(p.master ? { master: p.master } : {}),
        maxRecordBytes: p.maxRecordBytes,
        ...(marked ? { mark: marked } : {}),
      });
      for await (const doc of opened.documents) {
        count += 1;
        // a document the mapping routed (one export, several kinds) is checked as its own kind
        const docKind = doc.kind ?? p.kind;
        const problems: Problem[] = [...doc.problems];
        if (doc.request !== undefined)
          problems.push(
            ...placed(
              validateDocument(docKind, doc.request, {
                today: p.today,
                issuerNit: p.company.nit,
                ...(p.pos === undefined ? {} : { posTipo: posTipoFor(p.pos, path.basename(file)) }),
              }),
              doc.place,
            ),
          );
        const own = doc.request === undefined ? undefined : documentKey(docKind, doc.request);
        // the key as result.json, status and retry show it; a document without its own has the export's key
        // columns joined as source.erpKey, as in result.json
        const key = own === undefined ? null : formatKey(p.company.alias, docKind, own);
        const erpKey = own === undefined ? (doc as { key?: string }).key : undefined;
        const source =
          erpKey === undefined || erpKey === '' ? doc.source : { ...doc.source, erpKey };
        if (problems.length > 0 || doc.request === undefined) invalid += 1;
        sink.out(
          JSON.stringify({
            ...named,
            index: doc.index,
            source,
            key,
            request: doc.request ?? null,
            problems: distinctProblems(problems),
          }),
        );
      }
      // as the daemon refuses it (intake.ts): a header alone, or rows the mapping skips, is no document
      if (count === 0) throw noDocumentsError(path.basename(file), p.mapping);
    } catch (err) {
      if (!isEdocError(err) || !/^EDOC_(READ|MAP)_/.test(err.code)) throw err;
      // the message may quote the file (an API key file given by mistake): configured keys are removed
      unitError(p, file, err, sink);
      failed = true;
      continue;
    }
    if (invalid > 0) failed = true;
  }
  return failed;
}

/** Each file alone; with a mapping that reads sets, the sets the files make up (a file that is no part, or lacks its partner, fails). */
function unitsOf(p: ValidateParams): Unit[] {
  const { files, mapping } = p;
  const single = (file: string, ctx: CsvSourceContext): Promise<OpenedSource> =>
    openSource(file, p.kind, {
      company: p.company,
      ...(mapping && DELIMITED.includes(formatOf(file) ?? '') ? { mapping } : {}),
      ...(p.master ? { master: p.master } : {}),
      maxRecordBytes: p.maxRecordBytes,
      ...(ctx.mark ? { mark: ctx.mark } : {}),
    });
  const parts = mapping?.parts;
  if (mapping === undefined || parts === undefined)
    return files.map((file) => ({
      name: file,
      set: false,
      open: (ctx: CsvSourceContext) => single(file, ctx),
    }));
  const grouped = groupSets(parts, files);
  return [
    ...grouped.sets.map((s) => ({
      name: path.join(path.dirname(s.header), s.set),
      set: true,
      open: (ctx: CsvSourceContext) => openSetSource(s, mapping, ctx),
    })),
    ...grouped.alone.map((a) => ({
      name: a.file,
      set: false,
      open: (): Promise<OpenedSource> =>
        Promise.reject(
          a.reason === 'not-a-part'
            ? notAPart(a.file, parts)
            : new EdocError(
                'EDOC_READ_SET_WAITING',
                `${path.basename(a.file)} is the ${a.reason} file of a set whose ${a.reason === 'header' ? 'lines' : 'header'} file ` +
                  `("${a.reason === 'header' ? parts.lines.file : parts.header.file}") was not given`,
                { file: path.basename(a.file) },
              ),
        ),
    })),
  ];
}
