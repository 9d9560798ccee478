// Invoices for the bench: the shared request fixture (test/fixtures/requests/invoice.json),
// numbered SETP<n>, as JSONL text; and the raw request bodies for the bare undici loop.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './util.mjs';

const FIXTURE = readFileSync(join(ROOT, 'test/fixtures/requests/invoice.json'), 'utf8');

export const FIRST_NUMBER = 990_000_001;

export function invoice(number) {
  const doc = JSON.parse(FIXTURE);
  doc.SerieNumber = String(number);
  doc.CorrelationDocumentId = `ERP-SETP-${number}`;
  return doc;
}

/** `count` invoices numbered from `from`, one JSON object per line. */
export function invoicesJsonl(count, from = FIRST_NUMBER) {
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify(invoice(from + i)));
  return `${lines.join('\n')}\n`;
}
