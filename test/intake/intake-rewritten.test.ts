/**
 * A JSONL file rewritten in place between its content hash and its read, to the same size and mtime (a
 * writer within one tick of the clock, a copy that keeps the mtime): the read goes by what the hash's
 * pass saw of the file (read/text-facts.ts), so bytes it never saw must make the file EDOC_READ_CHANGED
 * (dropped, taken again once unchanged), never refuse it for them. The rewrite happens where the intake
 * asks for the kind's mapping: after the hash and the ledger's record, before the read.
 * Real files, real SQLite ledger, intakeFile in-process.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intakeFile, type IntakeContext } from '../../src/intake/intake.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { intakeSetUp, testIntakeContext } from '../helpers/intake-config.js';

const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Whole seconds: utimes sets them again exactly. */
const MTIME = new Date('2026-11-20T12:00:00Z');

async function setUp(): Promise<{ ctx: IntakeContext; inbox: string; ledger: Ledger }> {
  const { config, inbox, ledger, logger } = await intakeSetUp('edoc-intake-rewritten-', closers);
  // one invoice line is 2,196 characters (more bytes: it has accented letters), two joined more than 4,096
  const limited = { ...config, read: { ...config.read, maxRecordBytes: 4_096 } };
  return { ctx: testIntakeContext({ ledger, config: limited, logger }), inbox, ledger };
}

describe('a JSONL file rewritten between its hash and its read', () => {
  it('with a line too long that the hashed bytes did not have: changed and taken again, then refused for its own bytes', async () => {
    const { ctx, inbox, ledger } = await setUp();
    const company = ctx.config.companies[0];
    const file = path.join(inbox, 'ventas.jsonl');
    const text = jsonlText([invoice(990000001), invoice(990000002), invoice(990000003)]);
    const lines = text.split('\n');
    expect(lines.slice(0, 3).every((l) => Buffer.byteLength(l) < 4_096)).toBe(true);
    fs.writeFileSync(file, text);
    fs.utimesSync(file, MTIME, MTIME);
    // the same bytes with the first line break a blank: lines 1 and 2 one line of more than 4,096 bytes
    const rewritten = text.replace('\n', ' ');
    expect(Buffer.byteLength(rewritten)).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(rewritten.split('\n')[0])).toBeGreaterThan(4_096);
    const rewriting: IntakeContext = {
      ...ctx,
      mapping: async () => {
        fs.writeFileSync(file, rewritten);
        fs.utimesSync(file, MTIME, MTIME);
        return undefined;
      },
    };

    const first = await intakeFile(rewriting, { path: file, kind: 'invoice', company });
    expect(first).toEqual({ outcome: 'changed' });
    // nothing of it stays in the ledger: no file row, no document due
    expect(await ledger.filesMatching('ventas.jsonl')).toEqual([]);
    expect(await ledger.claimDue('main', Date.now() + 60_000, 10)).toEqual([]);

    // taken again as the watcher does: the bytes it now hashes are the ones it refuses
    const again = await intakeFile(ctx, { path: file, kind: 'invoice', company });
    expect(again.outcome).toBe('failed-read');
    const row = await ledger.getFile(again.fileId ?? -1);
    expect(row?.error).toMatchObject({ code: 'EDOC_READ_JSON', lines: [1] });
    expect(row?.error?.message).toMatch(/^line 1 is longer than 4096 characters/);
    expect(row?.sha256).toBe(createHash('sha256').update(rewritten).digest('hex'));
  });
});
