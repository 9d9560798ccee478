import { z } from 'zod';

/**
 * `ledger` and `cluster`: where the ledger lives, and (issue 13) how the nodes of a cluster sharing a
 * PostgreSQL ledger call themselves and hold their companies. Without `ledger.url` nothing changes:
 * the SQLite ledger in paths.state.
 */

// `${VAR}` substitution yields strings: a whole-number string is taken as the number
const toNumber = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;

/** What is wrong with a ledger URL, never quoting it (it may hold a password); undefined when it is fine. */
export function ledgerUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a URL such as postgres://USER@HOST:5432/DATABASE (a password in it must be URL-encoded)';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return `must be a postgres:// URL, not ${url.protocol}//`;
  const sslmode = url.searchParams.get('sslmode');
  if (
    sslmode !== null &&
    !['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'].includes(sslmode)
  ) {
    return 'sslmode must be one of disable, prefer, require, verify-ca, verify-full, no-verify';
  }
  return undefined;
}

export const ledgerSchema = z.strictObject({
  /**
   * The PostgreSQL ledger: `postgres://USER@HOST:PORT/DATABASE[?sslmode=verify-full]`. The password
   * comes from the URL (write it as `${VAR}`), else PGPASSWORD, else ~/.pgpass; missing parts from the
   * PG* variables. A secret: shown as [redacted] wherever the configuration is shown.
   * @defaultValue absent: the SQLite ledger in paths.state
   */
  url: z
    .string()
    .trim()
    .min(1, 'must not be empty (leave ledger.url out for the SQLite ledger)')
    .superRefine((text, ctx) => {
      const problem = ledgerUrlProblem(text);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

export const clusterSchema = z.strictObject({
  /** This node's name in the cluster's tables. @defaultValue host name and process id, at start */
  node: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/,
      'must be 1-100 ASCII letters (A-Z, a-z), digits, ".", "_", ":" or "-", starting with a letter or digit',
    )
    .optional(),
  /** How long a company's lease lasts without renewal: the longest a dead node keeps its companies. @defaultValue 15000 */
  leaseMs: z.preprocess(toNumber, z.number().int().min(1_000).max(600_000)).default(15_000),
});

export type LedgerConfig = z.output<typeof ledgerSchema>;
export type ClusterConfig = z.output<typeof clusterSchema>;
