/**
 * The same input name dropped again reuses its outbox names only after the earlier file's report set
 * moved to the archive (src/report/move-aside.ts). A crash between any two steps of that move is
 * repaired by the next report write: nothing lost, nothing left twice. A real ledger and real folders.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { settleFile, writeFileReport } from '../../src/daemon/file-reports.js';
import { tempDir } from './helpers.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A finished, archived `diario.jsonl` (one accepted, one rejected document), then a new `diario.jsonl` recorded. */
async function twoDailyFiles() {
  const root = tempDir();
  const inbox = path.join(root, 'inbox', 'invoice');
  const outbox = path.join(root, 'outbox', 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  const ledger = Ledger.open(path.join(root, 'state'));
  const input = path.join(inbox, 'diario.jsonl');
  const record = async (content: string, now: number) => {
    fs.writeFileSync(input, content);
    return (
      await ledger.recordFile({
        path: input,
        name: 'diario.jsonl',
        size: content.length,
        sha256: sha(content),
        kind: 'invoice',
        company: 'main',
        now,
        outboxDir: outbox,
        archive: true,
      })
    ).fileId;
  };
  const first = await record('{"n":1}\n{"n":2}\n', Date.parse('2026-11-20T10:00:00Z'));
  await ledger.setReadDetails(first, { format: 'jsonl' });
  await ledger.insertDocuments(
    first,
    [0, 1].map((i): NewDocument => ({
      index: i,
      source: { lines: [i + 1] },
      number: `SETP/${i + 1}`,
      ownNumber: true,
      raw: `{"n":${i + 1}}\n`,
    })),
  );
  await ledger.finishReading(first);
  const ids = (await ledger.claimDue('main', Date.now(), 2)).map((d) => d.id);
  await ledger.markSending(ids);
  await ledger.recordOutcomes([
    { id: ids[0], state: 'accepted' },
    { id: ids[1], state: 'rejected', errors: [{ message: 'Regla: FAD05' }] },
  ]);
  await settleFile(ledger, first, outbox);
  const earlier = new Map(
    ['diario.result.json', 'diario.errors.csv', 'diario.retry.jsonl'].map((n) => [
      n,
      fs.readFileSync(path.join(outbox, n)),
    ]),
  );
  const second = await record('{"n":3}\n', Date.parse('2026-11-21T10:00:00Z'));
  expect((await ledger.getFile(second))?.reportName).toBe('diario');
  return { outbox, ledger, first, second, earlier, archive: path.join(outbox, 'archive') };
}

function expectMovedIntact(archive: string, earlier: Map<string, Buffer>): void {
  for (const [name, bytes] of earlier) {
    expect(
      fs.readFileSync(path.join(archive, name.replace(/^diario\./, 'diario.jsonl.'))).equals(bytes),
      name,
    ).toBe(true);
  }
}

describe('moving an earlier report set aside', () => {
  it('moves it beside its original before the new report takes the names, and records where', async () => {
    const { outbox, ledger, first, second, earlier, archive } = await twoDailyFiles();
    await writeFileReport(ledger, second, outbox);
    expectMovedIntact(archive, earlier);
    expect(fs.readdirSync(archive).sort()).toEqual([
      'diario.jsonl',
      'diario.jsonl.errors.csv',
      'diario.jsonl.result.json',
      'diario.jsonl.retry.jsonl',
    ]);
    expect(fs.readdirSync(outbox).filter((n) => n !== 'archive')).toEqual(['diario.result.json']);
    expect(await ledger.getFile(first)).toMatchObject({
      reportDir: archive,
      reportName: 'diario.jsonl',
    });
    // a later rewrite of the earlier file (resolve, retry) goes to its new place, not over the new report
    const newBytes = fs.readFileSync(path.join(outbox, 'diario.result.json'));
    await ledger.markReported(first, 'partial');
    await settleFile(ledger, first, outbox);
    expect(fs.readFileSync(path.join(outbox, 'diario.result.json')).equals(newBytes)).toBe(true);
    expect(
      JSON.parse(fs.readFileSync(path.join(archive, 'diario.jsonl.result.json'), 'utf8')),
    ).toMatchObject({ counts: { total: 2 } });
    await ledger.close();
  });

  it('a crash after the archive links, before the ledger knew: the next write finishes the same move', async () => {
    const { outbox, ledger, second, earlier, archive } = await twoDailyFiles();
    for (const name of earlier.keys()) {
      fs.linkSync(
        path.join(outbox, name),
        path.join(archive, name.replace(/^diario\./, 'diario.jsonl.')),
      );
    }
    await writeFileReport(ledger, second, outbox);
    expectMovedIntact(archive, earlier);
    expect(fs.readdirSync(archive).filter((n) => n.includes('(2)'))).toEqual([]);
    await ledger.close();
  });

  it('a crash after the ledger recorded the move, before the outbox names were unlinked: the new report replaces them', async () => {
    const { outbox, ledger, first, second, earlier, archive } = await twoDailyFiles();
    for (const name of earlier.keys()) {
      fs.linkSync(
        path.join(outbox, name),
        path.join(archive, name.replace(/^diario\./, 'diario.jsonl.')),
      );
    }
    await ledger.relocateReport(first, archive, 'diario.jsonl');
    await writeFileReport(ledger, second, outbox);
    expectMovedIntact(archive, earlier);
    expect(fs.readdirSync(outbox).filter((n) => n !== 'archive')).toEqual(['diario.result.json']);
    expect(
      JSON.parse(fs.readFileSync(path.join(outbox, 'diario.result.json'), 'utf8')),
    ).toMatchObject({ counts: { total: 0 } });
    await ledger.close();
  });

  it('never overwrites a file already in the archive under the chosen name', async () => {
    const { outbox, ledger, second, earlier, archive } = await twoDailyFiles();
    fs.writeFileSync(path.join(archive, 'diario.jsonl.result.json'), "someone else's");
    await writeFileReport(ledger, second, outbox);
    expect(fs.readFileSync(path.join(archive, 'diario.jsonl.result.json'), 'utf8')).toBe(
      "someone else's",
    );
    expect(
      fs
        .readFileSync(path.join(archive, 'diario.jsonl (2).result.json'))
        .equals(earlier.get('diario.result.json') as Buffer),
    ).toBe(true);
    await ledger.close();
  });
});
