/**
 * What a company sender reads of the ledger besides its commits: its due documents (`readDue`), and
 * for its verdicts (decide.ts) the one fact a repeated-number answer needs (`decideVerdict`): whether an earlier attempt of the number may have been delivered. That fact is read only
 * then (every earlier attempt's flag is committed: a document is sent again, and one with the same number
 * is marked, only after that commit). It is read in one call and used by the verdict's commit in another:
 * nothing in between can change it, since markSending keeps one document per number `sending` at a time
 * (others wait, `key-in-flight`), and only a document `sending` gets the flag — this one, whose verdict
 * is not committed yet. Synchronous unless the ledger must be read.
 */
import type { LedgerPort } from '../ledger/port.js';
import type { DueDocument } from '../ledger/types.js';
import type { Logger } from '../log/logger.js';
import type { ServiceResponse } from '../service/client-types.js';
import { mentionsRepeatedNumber } from '../service/outcome.js';
import { decide, type Decision } from './decide.js';

type Ask = Omit<Parameters<typeof decide>[2], 'numberMayHaveBeenDelivered'>;

export function decideVerdict(
  ledger: Pick<LedgerPort, 'numberMayHaveBeenDelivered'>,
  doc: DueDocument,
  response: ServiceResponse,
  ask: Ask,
): Decision | Promise<Decision> {
  const { outcome, httpStatus } = response;
  const repeated =
    outcome.kind === 'duplicate' ||
    (outcome.kind === 'rejected' && mentionsRepeatedNumber(outcome.messages));
  if (!repeated) return decide(outcome, httpStatus, { ...ask, numberMayHaveBeenDelivered: false });
  return ledger
    .numberMayHaveBeenDelivered(doc)
    .then((maybe) => decide(outcome, httpStatus, { ...ask, numberMayHaveBeenDelivered: maybe }));
}

/**
 * The feeder's read of the company's due documents (`claimDue`, and when none is due the next due time).
 * claimDue only reads; the queued documents (`queued`, added by the feeder alone) are left out. Whatever
 * commits between this read and a document's mark — its retry verdict, an operator's resolve — is caught
 * by markSending, which takes only documents still pending (the ledger port's atomicity rule). A read
 * that failed (a PostgreSQL ledger restarted, its connection cut) is logged and undefined: the feeder is
 * the company's only one and nothing awaits it until close, so it must not end on a rejection.
 */
export async function readDue(
  o: { ledger: Pick<LedgerPort, 'claimDue' | 'nextDueAt'>; logger: Logger },
  alias: string,
  now: number,
  room: number,
  queued: ReadonlySet<number>,
): Promise<{ due: DueDocument[]; next: number | undefined } | undefined> {
  try {
    const due = await o.ledger.claimDue(alias, now, room, queued);
    const next = due.length === 0 ? await o.ledger.nextDueAt(alias) : undefined;
    return { due, next };
  } catch (err) {
    o.logger.error(
      { err, company: alias },
      'submit: reading the ledger failed; reading again shortly',
    );
    return undefined;
  }
}
