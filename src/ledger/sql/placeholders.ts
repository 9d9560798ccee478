/**
 * `?` placeholders to PostgreSQL's `$1…$n`, outside string literals ('it''s?'), quoted names ("a?"),
 * dollar-quoted bodies ($$…?…$$, $fn$…$fn$) and comments (-- … and /* … *\/). Pure; the executor caches
 * the result per statement text, so each distinct statement is scanned once per process.
 */
export interface Rewritten {
  text: string;
  /** How many placeholders the statement has. */
  count: number;
}

const DOLLAR_TAG = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/;

export function toNumberedPlaceholders(sql: string): Rewritten {
  let out = '';
  let count = 0;
  let i = 0;
  const n = sql.length;
  // copies sql[i..end) unchanged and moves on
  const copyTo = (end: number): void => {
    out += sql.slice(i, end);
    i = end;
  };
  while (i < n) {
    const c = sql[i];
    if (c === '?') {
      out += `$${++count}`;
      i++;
    } else if (c === "'" || c === '"') {
      // a doubled quote inside is the quote itself; an unterminated literal runs to the end
      let j = i + 1;
      for (;;) {
        const close = sql.indexOf(c, j);
        if (close === -1) {
          j = n;
          break;
        }
        if (sql[close + 1] === c) {
          j = close + 2;
          continue;
        }
        j = close + 1;
        break;
      }
      copyTo(j);
    } else if (c === '-' && sql[i + 1] === '-') {
      const eol = sql.indexOf('\n', i);
      copyTo(eol === -1 ? n : eol);
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      copyTo(end === -1 ? n : end + 2);
    } else if (c === '$') {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64));
      if (tag === null) {
        copyTo(i + 1);
        continue;
      }
      const end = sql.indexOf(tag[0], i + tag[0].length);
      copyTo(end === -1 ? n : end + tag[0].length);
    } else {
      // the longest run without anything special, in one slice
      let j = i + 1;
      while (j < n && !'?\'"-/$'.includes(sql[j])) j++;
      copyTo(j);
    }
  }
  return { text: out, count };
}
