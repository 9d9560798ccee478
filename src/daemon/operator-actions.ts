/**
 * The operator's two ways out for documents that need a person, in one place: `retry` (re-queue failed
 * work; in-doubt documents only on the operator's word) and `resolve` (record what the service holds:
 * --issued / --not-ours). `edoc-bridge retry` / `resolve` (on a shared connection beside a daemon) and the
 * web console (on the daemon's own connection) both call these; what differs is how the reports are
 * rewritten and how the senders learn of re-queued work, which the caller passes in.
 * Messages are returned, not printed: the CLI prints them, the console shows them.
 */
import { retryDocuments } from './retry-documents.js';
import { resolveDocuments } from './resolve-documents.js';
import type { Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import type { LedgerPort } from '../ledger/port.js';
import type { ConsoleActions } from '../http/console/deps.js';
import { settleFile } from './file-reports.js';
import { inInboxFolder, outboxDir } from '../intake/folders.js';

/**
 * Rewrites (and settles, when final) the reports of these files from a process that is not the daemon
 * (`edoc-bridge resolve`): where each file's reports live is fixed in the ledger. Returns the result.json paths.
 */
export async function rewriteReports(
  ledger: LedgerPort,
  config: Readonly<Config>,
  fileIds: readonly number[],
): Promise<string[]> {
  const reports: string[] = [];
  for (const fileId of fileIds) {
    const row = await ledger.getFile(fileId);
    if (row === undefined) continue;
    const dir = row.outboxDir ?? outboxDir(config, row.company, row.kind);
    const settled = await settleFile(ledger, fileId, dir, {
      archive: row.archive ?? inInboxFolder(config, row.path),
      scrub: (text) => secretScrubberOf(config).scrub(text),
    });
    if (settled.report) reports.push(settled.report.resultPath);
  }
  return reports;
}

/**
 * The console's actions on a running daemon's own ledger connection: re-queued work wakes the senders
 * at once, and reports are rewritten through the daemon's report scheduler (never beside it).
 */
export function consoleActions(
  ledger: LedgerPort,
  daemon: { wake(): void; report(fileId: number): Promise<{ resultPath?: string }> },
): ConsoleActions {
  return {
    retry: async (ids, options) => {
      const result = await retryDocuments(ledger, { ids }, options);
      if (result.ids.length > 0) daemon.wake();
      return Promise.resolve(result);
    },
    resolve: async (ids, options) => {
      const result = await resolveDocuments(
        ledger,
        { ids },
        {
          ...options,
          via: 'console',
          rewrite: async (fileIds) => {
            const written: string[] = [];
            for (const id of fileIds) {
              const report = await daemon.report(id);
              if (report.resultPath !== undefined) written.push(report.resultPath);
            }
            return written;
          },
        },
      );
      // copies held back for its ERP key are due now: the sender looks at once
      if ((result.released ?? 0) > 0) daemon.wake();
      return result;
    },
  };
}
