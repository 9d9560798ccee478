/**
 * One read of a company's numbering ranges (E10), within its run's rate: the active ones, or why they
 * could not be read (an answer that is not a success, one that does not follow the spec, no answer).
 * The reason names the status and the service's reason only: never a key, never a body.
 */
import { z } from 'zod';
import type { CompanyConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { CompanyPause } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';
import { numberingRangeSchema } from '../service/schemas/numbering.js';
import { activeRange, type ActiveRange } from './range-math.js';

export type RangeRead =
  | { ok: true; ranges: ActiveRange[] }
  | {
      ok: false;
      failure: string;
      /** The service refused the company's credentials. */ refused?: true;
    };

export async function readRanges(
  company: CompanyConfig,
  rate: CompanyRate,
  client: Pick<ServiceClient, 'listRanges'>,
  signal: AbortSignal,
): Promise<RangeRead> {
  try {
    const response = await rate.send(
      () => client.listRanges(company, { nit: company.nit }, { signal }),
      signal,
    );
    if (response.outcome.kind !== 'accepted') {
      return {
        ok: false,
        failure: `HTTP ${response.httpStatus ?? '-'}, ${response.outcome.kind}: ${response.outcome.reason}`,
        ...(response.outcome.kind === 'unauthorized' ? { refused: true as const } : {}),
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
    return { ok: false, failure: err instanceof Error ? err.message : String(err) };
  }
}

/** A read refused for the company's credentials pauses the whole company, with one line (none if paused already). */
export function pauseRefused(
  run: { readonly company: CompanyConfig; readonly pause: CompanyPause },
  reason: string,
  logger: Logger,
): void {
  if (!run.pause.pause(reason, 'ranges')) return;
  logger.error(
    { code: 'EDOC_SERVICE_UNAUTHORIZED', company: run.company.alias, reason },
    "the service refused this company's credentials (reading its numbering ranges): its submissions and received-documents pull are paused until the configuration is reloaded (SIGHUP) or the daemon restarts",
  );
}
