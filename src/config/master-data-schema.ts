import { z } from 'zod';
import { parseDuration } from './duration.js';

/**
 * `masterData`: the ERP's third-party exports (customers, suppliers, employees) that become lookup
 * tables in the ledger, read by mappings as `lookup(table, key, column)`. Each table has a folder of
 * its own; the newest complete file in it is the table (daemon/master-data-watch.ts).
 */

const duration = (minMs: number, example: string) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms < minMs) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a duration of at least ${minMs / 1000}s such as ${example}`,
      });
      return z.NEVER;
    }
    return ms;
  });

const columnName = z.string().trim().min(1, 'a column name of the table file');

export const masterTableSchema = z
  .strictObject({
    /** The folder the ERP's export of this table is dropped in; the newest complete file there is the table. */
    folder: z.string().trim().min(1, 'must be a non-empty path'),
    /** The column holding each row's id (what documents look the row up by). */
    key: columnName,
    /** The columns kept (besides the key): every one must be in the file's header; mappings may read only these. */
    columns: z.array(columnName).min(1, 'name at least one column to keep'),
    /** A table exported longer ago than this (its file's modification time) gives an EDOC_MASTER_STALE warning. */
    maxAge: duration(60_000, '12h, 1d or 7d').prefault('1d'),
    /** The file's text encoding: auto (UTF-8, else Windows-1252), utf-8 or windows-1252. */
    encoding: z.enum(['auto', 'utf-8', 'windows-1252']).default('auto'),
    /** The file's delimiter: auto (from the header line), ';', ',' or tab. */
    delimiter: z.enum(['auto', ';', ',', 'tab']).default('auto'),
  })
  .superRefine((t, ctx) => {
    const seen = new Set<string>();
    t.columns.forEach((c, i) => {
      if (c === t.key)
        ctx.addIssue({
          code: 'custom',
          path: ['columns', i],
          message: `"${c}" is the key; list only the other columns`,
        });
      else if (seen.has(c))
        ctx.addIssue({ code: 'custom', path: ['columns', i], message: `"${c}" is listed twice` });
      seen.add(c);
    });
  });

export const masterDataSchema = z.strictObject({
  /** How often each table's folder is looked at. */
  every: duration(1_000, '10s or 1m').prefault('10s'),
  tables: z
    .record(z.string(), masterTableSchema)
    .superRefine((tables, ctx) => {
      for (const name of Object.keys(tables)) {
        if (!/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name)) {
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message:
              'a table name is an ASCII letter (A-Z, a-z), then ASCII letters, digits or _ (at most 40 characters)',
          });
        }
      }
    })
    .default({}),
});

export type MasterDataConfig = z.output<typeof masterDataSchema>;
export type MasterTableConfig = z.output<typeof masterTableSchema>;
