/**
 * What the service commands (ranges, commission, received) share: pick the
 * company from --company, reach the service (starting the embedded emulator
 * when configured), and turn an outcome that is not a business answer into
 * the error whose code main() maps to exit 3.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import { closest } from '../config/suggest.js';
import { EdocError } from '../errors.js';
import type { ServiceClient, ServiceResponse } from '../service/client.js';
import { openService, type ResolvedService } from '../root/service.js';
import type { CliIO } from './command.js';
import { usageError } from './command.js';

/** The company named by --company, or the only one configured. */
export function pickCompany(config: Readonly<Config>, alias: string | undefined): CompanyConfig {
  const companies = config.companies;
  if (alias === undefined) {
    if (companies.length === 1) return companies[0];
    throw usageError(
      `several companies are configured; choose one with --company (${companies.map((c) => c.alias).join(', ')})`,
    );
  }
  const found = companies.find((c) => c.alias.toLowerCase() === alias.toLowerCase());
  if (found) return found;
  const suggestion = closest(
    alias,
    companies.map((c) => c.alias),
  );
  throw usageError(
    `no company "${alias}" in the configuration${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; configured: ${companies.map((c) => c.alias).join(', ')}`,
  );
}

export interface ServiceSession {
  company: CompanyConfig;
  client: ServiceClient;
  service: ResolvedService;
  close(): Promise<void>;
}

/**
 * Opens a client for one company. With `service.baseUrl: embedded` a notice on
 * stderr says the answers come from the bundled emulator, so nobody mistakes a
 * test registration for a real one.
 */
export async function openSession(io: CliIO, alias: string | undefined): Promise<ServiceSession> {
  const config = await io.config();
  const company = pickCompany(config, alias);
  const { service, client, close } = await openService(config);
  if (service.shared === true) {
    io.err(
      `note: service.baseUrl is "embedded": talking to the running daemon's emulator (${service.baseUrl}), not the tax authority's service`,
    );
  } else if (service.embedded) {
    const kept =
      config.emulator.state === undefined
        ? '; without emulator.state nothing it records outlives this command'
        : '';
    io.err(
      `note: service.baseUrl is "embedded": talking to the bundled emulator, not the tax authority's service${kept}`,
    );
  }
  return { company, client, service, close };
}

/** `ResultData` of an envelope body, or undefined. */
export function resultData(body: unknown): unknown {
  return body !== null && typeof body === 'object' && 'ResultData' in body
    ? (body as { ResultData: unknown }).ResultData
    : undefined;
}

function detail(response: ServiceResponse): string {
  const messages = response.outcome.messages.filter((m) => m.trim() !== '');
  if (messages.length > 0) return messages.join('; ');
  const data = resultData(response.body);
  return typeof data === 'string' && data.trim() !== '' ? data : response.outcome.reason;
}

/**
 * Throws for the outcomes that mean "could not talk to the service as this
 * company": unauthorized (exit 3), transient: network failure, timeout, 5xx,
 * 429 (exit 3). `what` names the operation for the message
 * ("listing the numbering ranges").
 */
export function throwIfUnreachable(
  response: ServiceResponse,
  company: CompanyConfig,
  baseUrl: string,
  what: string,
): void {
  const { outcome } = response;
  if (outcome.kind === 'unauthorized') {
    throw new EdocError(
      'EDOC_SERVICE_UNAUTHORIZED',
      `the service refused the credentials of company "${company.alias}" (id ${company.id}) while ${what}: ${detail(response)}; check apiKey/apiKeyFile and the company id`,
      {
        company: company.alias,
        op: response.op,
        httpStatus: response.httpStatus,
        resultCode: outcome.resultCode,
      },
    );
  }
  if (outcome.kind === 'transient') {
    const message =
      response.httpStatus === undefined
        ? `could not reach the service at ${baseUrl} while ${what}: ${outcome.messages[0] ?? outcome.reason}`
        : `the service at ${baseUrl} failed while ${what} (HTTP ${response.httpStatus}: ${detail(response)}); try again later`;
    throw new EdocError('EDOC_SERVICE_UNREACHABLE', message, {
      company: company.alias,
      op: response.op,
      httpStatus: response.httpStatus,
      errorCode: outcome.errorCode,
    });
  }
}
