/**
 * File claims: every node watching the shared inbox may see a dropped file; the company's owner takes it,
 * by a row (path relative to paths.inbox, content hash) written in the transaction that records the file
 * in the ledger — after the fence (fence.ts) checked the lease in that same transaction. So one claim per
 * (path, content) holds at a time, and it says which node took it under which epoch and, once recorded,
 * which `files` row it became.
 *
 * A claim left without a file id by a node that lost the company (its transaction ran, its recording
 * did not) is taken over by the next owner: its epoch is older. A claim with a file id stays: the file
 * is in the ledger, and the ledger's own recording (resume, duplicate content) decides what follows.
 */
import path from 'node:path';
import type { SqlExecutor } from '../ledger/sql/executor.js';

export interface FileClaim {
  /** Relative to paths.inbox, with forward slashes (relativeInboxPath). */
  path: string;
  sha256: string;
  company: string;
}

/** What claiming came to: taken now (or again, by this node), or recorded already as `fileId`. */
export type ClaimResult = { claimed: true } | { claimed: false; fileId: number; node: string };

/**
 * The path nodes agree on: relative to the inbox (each node may mount the shared folder elsewhere) and
 * with forward slashes (a Windows node writes the same text).
 */
export function relativeInboxPath(inbox: string, file: string): string {
  const rel = path.relative(inbox, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    return path.resolve(file).split(path.sep).join('/');
  return rel.split(path.sep).join('/');
}

/** Claims a file for this node at `epoch`; run inside the transaction that records it, after the fence. */
export async function claimFile(
  tx: SqlExecutor,
  node: string,
  epoch: number,
  claim: FileClaim,
): Promise<ClaimResult> {
  const taken = await tx.get(
    `
    INSERT INTO file_claims(path, sha256, company, node, epoch) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (path, sha256) DO UPDATE SET company = excluded.company, node = excluded.node, epoch = excluded.epoch, claimed_at = now()
      WHERE file_claims.file_id IS NULL AND (file_claims.epoch < excluded.epoch OR file_claims.node = excluded.node
        OR file_claims.company <> excluded.company)
    RETURNING 1 AS ok`,
    [claim.path, claim.sha256, claim.company, node, epoch],
  );
  if (taken !== undefined) return { claimed: true };
  const row = await tx.get<{ file_id: number | null; node: string }>(
    'SELECT file_id, node FROM file_claims WHERE path = ? AND sha256 = ?',
    [claim.path, claim.sha256],
  );
  // a claim without a file id of the same epoch by another node cannot exist while the fence holds (one
  // owner per epoch); report it as recorded elsewhere rather than take it
  return { claimed: false, fileId: row?.file_id ?? 0, node: row?.node ?? '' };
}

/** The claimed file became `files.id` (same transaction as claimFile). */
export async function attachClaim(
  tx: SqlExecutor,
  claim: Pick<FileClaim, 'path' | 'sha256'>,
  fileId: number,
): Promise<void> {
  await tx.run(
    'UPDATE file_claims SET file_id = ? WHERE path = ? AND sha256 = ? AND file_id IS NULL',
    [fileId, claim.path, claim.sha256],
  );
}
