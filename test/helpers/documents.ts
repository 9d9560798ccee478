/**
 * Valid requests of every kind, numbered as a test needs, built from the shared
 * request fixtures (test/fixtures/requests). Every function returns a fresh copy.
 */
import { loadRequestFixture } from '../fixtures/requests/index.js';
import type { TestCompany } from './daemon-harness.js';

type Json = Record<string, unknown>;

function issuer(doc: Json, company?: TestCompany): Json {
  if (company !== undefined) {
    doc.IssuerParty = {
      Identification: {
        DocumentNumber: company.nit,
        DocumentType: '31',
        CountryCode: 'CO',
        CheckDigit: company.checkDigit,
      },
    };
  }
  return doc;
}

/** An invoice SETP<number> (the range starts at 990000000). */
export function invoice(number: number, company?: TestCompany): Json {
  const doc = loadRequestFixture('invoice');
  doc.SerieNumber = String(number);
  doc.CorrelationDocumentId = `ERP-SETP-${number}`;
  return issuer(doc, company);
}

/** A credit note NC<number> referencing `referred` (e.g. SETP990000001). */
export function creditNote(number: number, referred: string, cufe?: string): Json {
  const doc = loadRequestFixture('credit-note');
  doc.SerieNumber = String(number);
  const ref = (doc.DocumentReferences as Json[])[0];
  ref.DocumentReferred = referred;
  if (cufe !== undefined) ref.DocumentReferredCUFE = cufe;
  return doc;
}

export function debitNote(number: number, referred: string): Json {
  const doc = loadRequestFixture('debit-note');
  doc.SerieNumber = String(number);
  (doc.DocumentReferences as Json[])[0].DocumentReferred = referred;
  return doc;
}

export function payroll(consecutive: number): Json {
  const doc = loadRequestFixture('payroll');
  (doc.NumeroSecuenciaXML as Json).Consecutivo = String(consecutive);
  doc.CorrelationDocumentId = `ERP-NOM-${consecutive}`;
  return doc;
}

/**
 * A support document DS<number>, or without its own number (the service assigns the consecutive).
 * `marker` goes into the first line's description, to find an unnumbered document at the emulator.
 */
export function supportDocument(number?: number, marker?: string): Json {
  const doc = loadRequestFixture('support-document');
  if (marker !== undefined) {
    const item = (doc.Lines as Json[])[0].Item as Json;
    item.Description = `${String(item.Description)} ${marker}`;
  }
  if (number === undefined) {
    delete doc.SeriePrefix;
    delete doc.SerieNumber;
  } else {
    doc.SerieNumber = String(number);
  }
  return doc;
}

/** A support adjustment note NDS<number> referencing an accepted support document (by number and CUFE). */
export function supportAdjustment(number: number, referred: string, cufe: string): Json {
  const doc = loadRequestFixture('adjustment-note');
  doc.SerieNumber = String(number);
  doc.DocumentReferences = [
    { DocumentReferred: referred, DocumentReferredCUFE: cufe, IssueDate: '2026-11-20' },
  ];
  return doc;
}

/** POS document content POS<number>. */
export function pos(number: number): Json {
  const doc = loadRequestFixture('pos-content');
  (doc.documento as Json).numeroDocumento = String(number);
  return doc;
}

/** `.json` text of one request or an array. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `.jsonl` text: one request per line. */
export function jsonlText(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join('\n') + '\n';
}

/** The marker `supportDocument` put into a request (undefined when none). */
export function supportMarker(request: unknown, pattern: RegExp): string | undefined {
  const lines = (request as { Lines?: { Item?: { Description?: string } }[] } | undefined)?.Lines;
  return pattern.exec(lines?.[0]?.Item?.Description ?? '')?.[0];
}
