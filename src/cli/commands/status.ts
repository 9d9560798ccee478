import { readFileSync } from 'node:fs';
import { isEdocError } from '../../errors.js';
import { openLedger } from '../../ledger/open.js';
import { lockHolder } from '../../ledger/lock.js';
import type { AttentionDocument, DocumentState, StatusSummary } from '../../ledger/types.js';
import type { Command } from '../command.js';
import { colombiaToday } from '../../policy/dates.js';
import { EXIT_OK } from '../exit-codes.js';
import { loadPauses } from '../../submit/pause-file.js';
import { loadWaitingParts } from '../../intake/waiting-parts-file.js';
import { clusterLines, readClusterStatus } from '../cluster-table.js';
import { rangeLines, storedRanges } from '../range-table.js';
import { splitCommand } from '../command-name.js';
import { counted, renderTable } from '../table.js';

const STATES: readonly DocumentState[] = [
  'pending',
  'sending',
  'accepted',
  'rejected',
  'invalid',
  'failed',
  'duplicate',
  'in-doubt',
];

export const statusCommand: Command = {
  name: 'status',
  summary:
    'ledger summary: documents by state, files in progress, in-doubt, failed and clashing documents, last pull',
  usage: 'edoc-bridge status [--json] [--config FILE]',
  description: [
    'Reads the ledger without taking its lock, so it works beside a running daemon.',
    'Lists every in-doubt and failed document with its key and last error; release them',
    'with edoc-bridge retry. Lists number clashes (not issued) too, and the numbering ranges',
    'with numbers and days left as the daemon last read them (status itself never asks the service).',
  ].join('\n'),
  examples: ['edoc-bridge status', 'edoc-bridge status --json | jq .inDoubt'],
  options: {
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  needsConfig: true,
  needsSecrets: false,
  async run(args, io) {
    const config = await io.config();
    const holder = lockHolder(config.paths.state);
    const command = holder ? holderCommand(holder.pid) : undefined;
    // The lock may be held by a one-shot command (submit, received pull) rather than the daemon.
    const isDaemon = holder !== undefined && (command === undefined || command === 'run');
    const daemon = holder
      ? {
          running: isDaemon,
          pid: holder.pid,
          since: holder.startedAt,
          ...(isDaemon ? {} : { heldBy: command }),
        }
      : { running: false };
    let summary: StatusSummary;
    try {
      const ledger = await openLedger(config, { readOnly: true, env: io.env });
      try {
        summary = await ledger.statusSummary();
      } finally {
        await ledger.close();
      }
    } catch (err) {
      if (!isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) throw err;
      summary = {
        byCompanyKind: [],
        filesInProgress: [],
        inDoubt: [],
        failed: [],
        clashes: [],
        lastPulls: [],
      };
    }
    // what the running daemon recorded of its paused companies (a 401): nothing when no daemon runs
    const paused = isDaemon && holder ? loadPauses(config.paths.state, holder.pid) : [];
    // parts of exports in two files waiting past their mapping's waitMs for their partner
    const waitingParts = isDaemon && holder ? loadWaitingParts(config.paths.state, holder.pid) : [];
    const ranges = storedRanges(config.paths.state, colombiaToday()) ?? null;
    const cluster = await readClusterStatus(config); // PostgreSQL ledger: the nodes and their leases
    if (args.flag('json')) {
      io.out(
        JSON.stringify(
          {
            stateDir: config.paths.state,
            daemon,
            paused,
            waitingParts,
            ...summary,
            ranges,
            ...(cluster ? { cluster } : {}),
          },
          null,
          2,
        ),
      );
      return EXIT_OK;
    }
    const held = !holder
      ? 'no daemon running'
      : isDaemon
        ? `a daemon is running (pid ${holder.pid}, since ${holder.startedAt})`
        : `no daemon running; edoc-bridge ${command} (pid ${holder.pid}) holds it since ${holder.startedAt}`;
    io.out(`State folder: ${config.paths.state} — ${held}`);
    for (const p of paused) {
      io.out(
        `PAUSED: company ${p.company} since ${p.since}: the service refused its credentials (${p.code}: ${p.reason}); ` +
          `its documents wait. Fix: ${p.fix}`,
      );
    }
    for (const w of waitingParts) {
      io.out(
        `WAITING: ${w.file} (company ${w.company}, ${w.kind}) waits since ${w.since} for its ${w.waitsFor} file ` +
          '(EDOC_READ_SET_WAITING): nothing of it is sent until its partner is complete in the same folder',
      );
    }
    io.out('');
    if (summary.byCompanyKind.length === 0) io.out('No documents in the ledger yet.');
    else {
      for (const line of renderTable(summary.byCompanyKind, [
        { header: 'company', value: (r) => r.company },
        { header: 'kind', value: (r) => r.kind },
        ...STATES.map((s) => ({
          header: s,
          value: (r: StatusSummary['byCompanyKind'][number]) => String(r.counts[s]),
          align: 'right' as const,
        })),
      ]))
        io.out(line);
    }
    if (summary.filesInProgress.length > 0) {
      io.out('');
      io.out(`Files in progress (${summary.filesInProgress.length}):`);
      for (const line of renderTable(summary.filesInProgress, [
        { header: 'file', value: (f) => f.name },
        { header: 'company', value: (f) => f.company },
        { header: 'kind', value: (f) => f.kind },
        { header: 'state', value: (f) => f.state },
        {
          header: 'final/total',
          value: (f) =>
            `${f.progress.total - f.progress.counts.pending - f.progress.counts.sending}/${f.progress.total}`,
          align: 'right',
        },
      ]))
        io.out(line);
    }
    attention(
      io.out,
      'In doubt (check at the service: no-answer → edoc-bridge resolve --issued or retry --in-doubt; ' +
        'repeated-number → edoc-bridge resolve --issued or --not-ours)',
      summary.inDoubt,
      true,
    );
    attention(io.out, 'Failed (gave up; edoc-bridge retry re-queues them)', summary.failed);
    attention(
      io.out,
      'Number clashes (not issued: the service holds another document under the number; give it a new number)',
      summary.clashes,
    );
    io.out('');
    if (summary.lastPulls.length === 0) io.out('Received documents: no pull yet.');
    for (const pull of summary.lastPulls) {
      io.out(
        `Received documents: last pull for ${pull.company} at ${new Date(pull.at).toISOString()}${pullSummary(pull.data)}`,
      );
    }
    io.out('');
    for (const line of rangeLines(ranges ?? undefined)) io.out(line);
    if (cluster !== undefined) {
      io.out('');
      for (const line of clusterLines(cluster)) io.out(line);
    }
    return EXIT_OK;
  },
};

/** What the received puller recorded of its last pull (received/puller.ts), in words; '' when it recorded nothing known. */
export function pullSummary(data: unknown): string {
  if (data === null || typeof data !== 'object') return '';
  const d = data as {
    window?: unknown;
    pages?: unknown;
    new?: unknown;
    seenBefore?: unknown;
    errors?: unknown;
    cursor?: unknown;
  };
  const num = (value: unknown): number | undefined =>
    typeof value === 'number' ? value : undefined;
  const parts = [
    num(d.new) === undefined ? undefined : `${num(d.new)} new`,
    num(d.seenBefore) === undefined ? undefined : `${num(d.seenBefore)} seen before`,
    num(d.pages) === undefined ? undefined : counted(num(d.pages) as number, 'page'),
    num(d.errors) === undefined ? undefined : counted(num(d.errors) as number, 'error'),
  ].filter((part): part is string => part !== undefined);
  const window = typeof d.window === 'string' ? ` (${d.window})` : '';
  const cursor = typeof d.cursor === 'string' ? `; cursor ${d.cursor}` : '';
  return parts.length === 0 && window === '' ? '' : `${window}: ${parts.join(', ')}${cursor}`;
}

function attention(
  out: (line: string) => void,
  title: string,
  docs: readonly AttentionDocument[],
  why = false,
): void {
  if (docs.length === 0) return;
  out('');
  out(`${title}: ${docs.length}`);
  for (const line of renderTable(docs, [
    { header: 'key', value: (d) => d.key ?? `${d.file}#${d.index}` },
    { header: 'file', value: (d) => d.file },
    ...(why ? [{ header: 'why', value: (d: AttentionDocument) => d.doubt ?? '' }] : []),
    { header: 'attempts', value: (d) => String(d.attempts), align: 'right' },
    { header: 'last error', value: (d) => (d.lastError ?? '').slice(0, 120) },
  ]))
    out(line);
}

/**
 * The edoc-bridge command a process runs (`run`, `submit`…), from /proc; 'unknown' for a process
 * that is not edoc-bridge's bin, undefined where /proc cannot tell (not Linux, another user's hidepid).
 */
export function holderCommand(pid: number): string | undefined {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return undefined;
  }
  const script = argv.findIndex((a) => /edoc-bridge(\.js)?$/.test(a));
  if (script === -1) return 'unknown';
  return splitCommand(argv.slice(script + 1)).name ?? 'unknown';
}
