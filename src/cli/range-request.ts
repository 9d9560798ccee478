/**
 * `ranges create` options -> the E11 request, checked locally against what the
 * spec's seven validations allow us to know before sending: required fields
 * (1), the date format (2), StartValue ≤ EndValue (3), ValidFrom ≤ ValidTo (4)
 * and the Nit (5, always sent: the configured company's). The company's
 * existence (6) and duplicates (7) only the service can tell. Every problem is
 * collected, so one run shows them all.
 */
import { closest } from '../config/suggest.js';
import { isDate, isDateTime } from '../policy/dates.js';
import {
  createNumberingRequestSchema,
  NUMBERING_DOCUMENT_TYPES,
  type CreateNumberingRequest,
  type NumberingDocumentType,
} from '../service/schemas/numbering.js';

export interface RangeCreateInput {
  prefix?: string;
  authorization?: string;
  from?: string;
  to?: string;
  validFrom?: string;
  validTo?: string;
  type?: string;
  current?: string;
  name?: string;
}

export type RangeRequestResult =
  { ok: true; request: CreateNumberingRequest } | { ok: false; problems: string[] };

const DATE_FORMS = 'yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss';

/** A day alone means the whole day: from its first second, to its last. */
export function expandDate(text: string, edge: 'start' | 'end'): string | undefined {
  if (isDateTime(text)) return text;
  if (isDate(text)) return `${text}${edge === 'start' ? 'T00:00:00' : 'T23:59:59'}`;
  return undefined;
}

function documentType(text: string): NumberingDocumentType | undefined {
  return NUMBERING_DOCUMENT_TYPES.find((t) => t.toLowerCase() === text.trim().toLowerCase());
}

export function buildRangeRequest(input: RangeCreateInput, nit: string): RangeRequestResult {
  const problems: string[] = [];
  const required = (
    value: string | undefined,
    option: string,
    what: string,
  ): string | undefined => {
    if (value === undefined || value.trim() === '') {
      problems.push(`--${option} is required (${what})`);
      return undefined;
    }
    return value.trim();
  };
  const whole = (
    value: string | undefined,
    option: string,
    what: string,
    needed: boolean,
  ): number | undefined => {
    const text = needed ? required(value, option, what) : value?.trim();
    if (text === undefined || text === '') return undefined;
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      problems.push(`--${option}: '${text}' is not a whole number`);
      return undefined;
    }
    return Number(text);
  };
  const date = (
    value: string | undefined,
    option: string,
    what: string,
    edge: 'start' | 'end',
  ): string | undefined => {
    const text = required(value, option, what);
    if (text === undefined) return undefined;
    const expanded = expandDate(text, edge);
    if (expanded === undefined)
      problems.push(`--${option}: '${text}' is not a date as ${DATE_FORMS}`);
    return expanded;
  };

  const prefix = required(input.prefix, 'prefix', 'the numbering prefix');
  const authorization = required(input.authorization, 'authorization', 'the resolution number');
  const start = whole(input.from, 'from', 'the first number of the range', true);
  const end = whole(input.to, 'to', 'the last number of the range', true);
  const validFrom = date(input.validFrom, 'valid-from', 'the first day of validity', 'start');
  const validTo = date(input.validTo, 'valid-to', 'the last day of validity', 'end');
  const typeText = required(input.type, 'type', NUMBERING_DOCUMENT_TYPES.join(', '));
  const current = whole(input.current, 'current', 'the current consecutive', false);

  let type: NumberingDocumentType | undefined;
  if (typeText !== undefined) {
    type = documentType(typeText);
    if (type === undefined) {
      const guess = closest(typeText, NUMBERING_DOCUMENT_TYPES);
      problems.push(
        `--type: '${typeText}' is not one of ${NUMBERING_DOCUMENT_TYPES.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
      );
    }
  }
  if (start !== undefined && end !== undefined && start > end) {
    problems.push(
      `--from ${start} is greater than --to ${end} (the first number must not be greater than the last)`,
    );
  }
  // The fixed-width yyyy-MM-ddTHH:mm:ss form orders correctly as text.
  if (validFrom !== undefined && validTo !== undefined && validFrom > validTo) {
    problems.push(`--valid-from ${validFrom} is later than --valid-to ${validTo}`);
  }
  if (
    problems.length > 0 ||
    prefix === undefined ||
    authorization === undefined ||
    start === undefined ||
    end === undefined ||
    validFrom === undefined ||
    validTo === undefined ||
    type === undefined
  ) {
    return { ok: false, problems };
  }

  const request: CreateNumberingRequest = {
    Prefix: prefix,
    AuthorizationNumber: authorization,
    ValidFrom: validFrom,
    ValidTo: validTo,
    StartValue: start,
    EndValue: end,
    DocumentType: type,
    Nit: nit,
    ...(current === undefined ? {} : { EfectiveValue: current }),
    ...(input.name === undefined || input.name.trim() === '' ? {} : { Name: input.name.trim() }),
  };
  // The shared wire schema has the last word, so the CLI cannot send what the spec forbids.
  const checked = createNumberingRequestSchema.safeParse(request);
  if (!checked.success) {
    return {
      ok: false,
      problems: checked.error.issues.map(
        (issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`,
      ),
    };
  }
  return { ok: true, request: checked.data };
}
