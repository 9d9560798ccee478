/**
 * The password file of libpq (`~/.pgpass`, or PGPASSFILE): `hostname:port:database:username:password`
 * lines, `*` matching anything, `\:` and `\\` escapes, the first matching line wins. Read here rather
 * than by node-postgres, whose own support prints a deprecation warning and goes away in pg 9.
 * Like libpq, a file that others may read or write is ignored.
 */
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PgpassTarget {
  host: string;
  port: string;
  database: string;
  user: string;
}

function fields(line: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) current += line[++i];
    else if (c === ':' && out.length < 4) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/** The password for `target` from the pgpass file, or undefined. */
export function pgpassPassword(
  target: PgpassTarget,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = env.PGPASSFILE ?? path.join(env.HOME ?? os.homedir(), '.pgpass');
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile() || (process.platform !== 'win32' && (stat.mode & 0o077) !== 0))
      return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const wanted = [target.host, target.port, target.database, target.user];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const parts = fields(line);
    if (parts.length !== 5) continue;
    if (wanted.every((value, i) => parts[i] === '*' || parts[i] === value)) return parts[4];
  }
  return undefined;
}
