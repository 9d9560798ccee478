/**
 * One read of a company's numbering ranges (E10), within its run's rate: the active ones, or why they
 * could not be read (an answer that is not a success, one that does not follow the spec, no answer).
 * The reason names the status and the service's reason only: never a key, never a body. Undefined:
 * `mayStart` said no once the slot came (the wait for a slot may outlast a company's gate), no read made.
 */
import { z } from 'zod';
import type { CompanyConfig } from '../config/schema.js';
import { RequestNotStarted, type CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import { numberingRangeSchema } from '../service/schemas/numbering.js';
import { activeRange, type ActiveRange } from './range-math.js';

export type RangeRead = { ok: true; ranges: ActiveRange[] } | { ok: false; failure: string };

export async function readRanges(
  company: CompanyConfig,
  rate: CompanyRate,
  client: Pick<ServiceClient, 'listRanges'>,
  signal: AbortSignal,
  mayStart?: () => boolean,
): Promise<RangeRead | undefined> {
  try {
    const response = await rate.send(
      () => client.listRanges(company, { nit: company.nit }, { signal }),
      signal,
      mayStart,
    );
    if (response.outcome.kind !== 'accepted') {
      return {
        ok: false,
        failure: `HTTP ${response.httpStatus ?? '-'}, ${response.outcome.kind}: ${response.outcome.reason}`,
      };
    }
    const data =
      response.body !== null && typeof response.body === 'object' && 'ResultData' in response.body
        ? (response.body as { ResultData: unknown }).ResultData
        : undefined;
    const parsed = z.array(numberingRangeSchema).safeParse(data);
    if (!parsed.success)
      return { ok: false, failure: 'the service answered ranges that do not follow the spec' };
    return {
      ok: true,
      ranges: parsed.data.map(activeRange).filter((r): r is ActiveRange => r !== undefined),
    };
  } catch (err) {
    if (err instanceof RequestNotStarted) return undefined; // not a failed read: none was made
    return { ok: false, failure: err instanceof Error ? err.message : String(err) };
  }
}
