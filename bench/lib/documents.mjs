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

/** The NIT check digit (the authority's weights), for the bench companies' invoices. */
export function checkDigit(nit) {
  const w = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
  let sum = 0;
  for (let i = 0; i < nit.length; i++) sum += Number(nit[nit.length - 1 - i]) * w[i];
  const r = sum % 11;
  return String(r > 1 ? 11 - r : r);
}

/** `count` invoices of `company` (its NIT as the issuer) numbered from `first`, one JSON text each. */
export function companyInvoiceLines(company, count, first = FIRST_NUMBER) {
  const lines = [];
  for (let k = 0; k < count; k++) {
    const doc = invoice(first + k);
    doc.IssuerParty = {
      Identification: {
        DocumentNumber: company.nit,
        DocumentType: '31',
        CountryCode: 'CO',
        CheckDigit: checkDigit(company.nit),
      },
    };
    lines.push(JSON.stringify(doc));
  }
  return lines;
}
