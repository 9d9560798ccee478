/**
 * The spec's Authentication section: `x-api-key` must be the key of the
 * company named by `x-company-id`. Each handler maps a failure to its own
 * documented answer (E1/E5/E6/E8/E9: HTTP 200 ResultCode 401; E2: 401/400;
 * E10/E11: 403; E12: 401).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { envelopeReply, header, parseIntStrict, type Reply } from './http.js';
import type { CompanyState, EmulatorState } from './state.js';

export type AuthFailure =
  'missing-key' | 'missing-company' | 'bad-company-id' | 'unknown-company' | 'bad-key';

export type AuthResult =
  | { ok: true; company: CompanyState }
  | { ok: false; failure: AuthFailure; companyText: string; company?: CompanyState };

export function authenticate(state: EmulatorState, headers: IncomingHttpHeaders): AuthResult {
  const key = header(headers, 'x-api-key');
  const companyText = header(headers, 'x-company-id') ?? '';
  const id = parseIntStrict(companyText);
  const company = state.company(id);
  if (companyText === '') return { ok: false, failure: 'missing-company', companyText };
  if (id === undefined) return { ok: false, failure: 'bad-company-id', companyText };
  if (key === undefined) return { ok: false, failure: 'missing-key', companyText, company };
  if (company === undefined) return { ok: false, failure: 'unknown-company', companyText };
  if (company.apiKey !== key) return { ok: false, failure: 'bad-key', companyText, company };
  return { ok: true, company };
}

/** The 401 message of E1/E5/E6/E8/E9: it names the company id (spec, Errors rule 1). */
/** The E1/E5/E6/E8/E9 answer to any authentication failure: HTTP 200, ResultCode 401. */
export function unauthorizedReply(companyText: string): Reply {
  const shown = companyText === '' ? '(sin x-company-id)' : companyText;
  const message = `La llave de acceso no corresponde a la empresa ${shown}.`;
  return envelopeReply(200, 401, false, message, [message]);
}

/** Checks a key against a company given outside the headers (E4's body companyId). */
export function keyMatches(company: CompanyState | undefined, key: string | undefined): boolean {
  return company !== undefined && key !== undefined && company.apiKey === key;
}
