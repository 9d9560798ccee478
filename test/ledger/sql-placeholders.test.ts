import { describe, expect, it } from 'vitest';
import { toNumberedPlaceholders } from '../../src/ledger/sql/placeholders.js';

describe('? placeholders become $n for PostgreSQL, outside literals, quoted names and comments', () => {
  it.each([
    ['SELECT ? , ?', 'SELECT $1 , $2', 2],
    [`SELECT '?', 'it''s ?', ?`, `SELECT '?', 'it''s ?', $1`, 1],
    [`SELECT "a?b" FROM t WHERE x = ?`, `SELECT "a?b" FROM t WHERE x = $1`, 1],
    ['SELECT ? -- why ?\n, ?', 'SELECT $1 -- why ?\n, $2', 2],
    ['SELECT /* ? */ ?', 'SELECT /* ? */ $1', 1],
    ['SELECT $$ ? $$, $tag$ ?$$ $tag$, ?', 'SELECT $$ ? $$, $tag$ ?$$ $tag$, $1', 1],
    ['SELECT a-b, c/d, $1x, ?', 'SELECT a-b, c/d, $1x, $1', 1],
    [`SELECT 'open ?`, `SELECT 'open ?`, 0],
    ['', '', 0],
  ])('%j', (sql, text, count) => {
    expect(toNumberedPlaceholders(sql)).toEqual({ text, count });
  });
});
