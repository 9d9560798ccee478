/**
 * The verdict's record keeps the service's answer as the text that came (issue 16 item 6): a body the
 * client parsed as JSON goes to the ledger as its raw (scrubbed) text, stored as is; any other body as
 * a JSON string, as before. Pure function over real values.
 */
import { describe, expect, it } from 'vitest';
import type { DueDocument } from '../../src/ledger/types.js';
import type { ServiceResponse } from '../../src/service/client-types.js';
import { outcomeRecord } from '../../src/submit/outcome-record.js';

const doc = {
  id: 7,
  fileId: 1,
  fileName: 'a.json',
  index: 0,
  company: 'main',
  kind: 'invoice',
  key: null,
  ownNumber: false,
  attempts: 0,
  request: {},
  lastOutcome: null,
  maybeDelivered: false,
} as unknown as DueDocument;

function answer(rawBody: string, body: unknown): ServiceResponse {
  return {
    op: 'E1',
    httpStatus: 503,
    headers: {},
    rawBody,
    body,
    durationMs: 1,
    outcome: { kind: 'transient', messages: [], warnings: [], reason: 'HTTP 503' },
  } as unknown as ServiceResponse;
}

const retry = { action: 'retry', delayMs: 100, maybeDelivered: false } as const;

describe('outcomeRecord keeps the answer as its text', () => {
  it('a JSON body: the raw text, byte for byte (spacing, key order, escapes)', () => {
    const raw = '{ "ResultCode": 503,\n  "Errors": ["espere \\u00e9"] }';
    const record = outcomeRecord(doc, answer(raw, JSON.parse(raw)), retry, 1_000);
    expect(record.responseText).toBe(raw);
  });

  it('a body that is not JSON (or empty): no text, the value stored as before', () => {
    expect(
      outcomeRecord(doc, answer('Service Unavailable', 'Service Unavailable'), retry, 1_000)
        .responseText,
    ).toBeUndefined();
    const empty = outcomeRecord(doc, answer('', ''), retry, 1_000);
    expect(empty.responseText).toBeUndefined();
    expect(empty.response).toBeNull();
  });
});
