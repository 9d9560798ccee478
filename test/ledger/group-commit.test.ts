/**
 * SQLite's write transactions of one turn share one COMMIT (one fsync): each is a savepoint of the
 * group, and each caller learns of its transaction only once that COMMIT is done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteExecutor } from '../../src/ledger/sql/sqlite.js';

let dir: string;
let file: string;
let statements: string[];
let q: SqliteExecutor;
let other: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-group-'));
  file = path.join(dir, 'g.sqlite');
  statements = [];
  const db = new Database(file, { verbose: (sql) => statements.push(String(sql)) });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
  q = new SqliteExecutor(db, { ownsConnection: true });
  other = new Database(file, { readonly: true }); // a second connection sees committed rows only
});

afterEach(async () => {
  other.close();
  await q.close();
  rmSync(dir, { recursive: true, force: true });
});

const commits = (): number => statements.filter((s) => s === 'COMMIT').length;
const committedNames = (): string[] =>
  (other.prepare('SELECT name FROM items ORDER BY id').all() as { name: string }[]).map(
    (r) => r.name,
  );

describe('SQLite group commit', () => {
  it('three transactions started in one turn commit once, and each resolves after that commit', async () => {
    const seen: string[][] = [];
    const add = (name: string): Promise<void> =>
      q
        .transaction(async (tx) => {
          await tx.run('INSERT INTO items(name) VALUES (?)', [name]);
        })
        .then(() => {
          seen.push(committedNames());
        });
    await Promise.all([add('a'), add('b'), add('c')]);
    expect(commits()).toBe(1);
    // every caller saw all three committed when it resumed
    expect(seen).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
  });

  it('a transaction that fails is rolled back alone; the others of its turn commit', async () => {
    const ok = q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['kept']));
    const failed = q.transaction(async (tx) => {
      await tx.run('INSERT INTO items(name) VALUES (?)', ['undone']);
      await tx.run('INSERT INTO items(name) VALUES (?)', ['kept']); // UNIQUE: fails
    });
    const after = q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['later']));
    await expect(failed).rejects.toThrow(/UNIQUE/);
    await ok;
    await after;
    expect(committedNames()).toEqual(['kept', 'later']);
    expect(commits()).toBe(1);
  });

  it('a statement outside a transaction, run while a turn is open, resolves only once it is committed', async () => {
    const tx = q.transaction((t) => t.run('INSERT INTO items(name) VALUES (?)', ['in-tx']));
    const outside = q
      .run('INSERT INTO items(name) VALUES (?)', ['outside'])
      .then(() => committedNames());
    await tx;
    expect(await outside).toEqual(['in-tx', 'outside']);
    expect(commits()).toBe(1);
  });

  it('transactions of later turns commit on their own (a caller that awaits one never waits for the next)', async () => {
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['one']));
    expect(committedNames()).toEqual(['one']);
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['two']));
    expect(committedNames()).toEqual(['one', 'two']);
    expect(commits()).toBe(2);
  });

  it('close commits an open turn first', async () => {
    const pending = q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['last']));
    await q.close();
    await pending;
    expect(committedNames()).toEqual(['last']);
  });

  it('the first transaction of a turn is the transaction itself: no savepoint, no undo copy in memory', async () => {
    // SQLite keeps a savepoint's undo copy of every page it changes in memory (temp_store MEMORY): a
    // lone transaction that releases a whole file's documents needs none, as nothing else is in its turn
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['alone']));
    expect(statements.filter((s) => s.startsWith('SAVEPOINT'))).toEqual([]);
    const joined = [
      q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['first'])),
      q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['second'])),
    ];
    await Promise.all(joined);
    // the second joined the open turn: it is a savepoint of it
    expect(statements.filter((s) => s.startsWith('SAVEPOINT'))).toEqual(['SAVEPOINT tx_member']);
    expect(committedNames()).toEqual(['alone', 'first', 'second']);
  });

  it('a failing first transaction of a turn is rolled back, and the turn after it commits', async () => {
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['kept']));
    const failed = q.transaction(async (tx) => {
      await tx.run('INSERT INTO items(name) VALUES (?)', ['undone']);
      await tx.run('INSERT INTO items(name) VALUES (?)', ['kept']); // UNIQUE: fails
    });
    await expect(failed).rejects.toThrow(/UNIQUE/);
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['later']));
    expect(committedNames()).toEqual(['kept', 'later']);
  });

  it('a first transaction that fails while another waits behind it: it alone is undone, the other commits', async () => {
    await q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['kept']));
    // both started in one turn: the first opens the turn's transaction, the second waits for the connection
    const failed = q.transaction(async (tx) => {
      await tx.run('INSERT INTO items(name) VALUES (?)', ['undone']);
      await tx.run('INSERT INTO items(name) VALUES (?)', ['kept']); // UNIQUE: fails
    });
    const behind = q.transaction((tx) => tx.run('INSERT INTO items(name) VALUES (?)', ['behind']));
    await expect(failed).rejects.toThrow(/UNIQUE/);
    await behind;
    expect(committedNames()).toEqual(['kept', 'behind']);
  });
});
