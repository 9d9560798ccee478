import { describe, expect, it } from 'vitest';
import {
  decodePdf,
  formatValue,
  receivedKey,
  receivedNames,
} from '../../src/received/received-files.js';

describe('received document files', () => {
  it('names a document <number>_<12 chars of cufe> in its yyyy-mm folder, safely', () => {
    const names = receivedNames({
      cufe: 'abcdef0123456789',
      documentNumber: 'FE/../12',
      documentDate: 'Tue, 03 Nov 2026 00:00:00 GMT',
    });
    expect(names).toEqual({
      month: '2026-11',
      stem: 'FE___12_abcdef012345',
      json: '2026-11/FE___12_abcdef012345.json',
      pdf: '2026-11/FE___12_abcdef012345.pdf',
    });
    expect(
      receivedNames({ cufe: 'x', documentNumber: 'A1', documentDate: 'not a date' }).month,
    ).toBe('undated');
  });

  it('identifies a document by cufe, then documentId, then a hash of the record', () => {
    expect(receivedKey({ cufe: 'c1', documentId: 'd1' })).toBe('c1');
    expect(receivedKey({ cufe: '', documentId: 'd1' })).toBe('d1');
    const hashed = receivedKey({ cufe: '', documentId: '', documentNumber: 'X' });
    expect(hashed).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(receivedKey({ cufe: '', documentId: '', documentNumber: 'X' })).toBe(hashed);
  });

  it('decodes a base64 PDF and refuses anything else', () => {
    const bytes = Buffer.from('%PDF-1.7\n\u0000\u00ff%%EOF', 'latin1');
    const pdf = decodePdf({ pdfDocument: bytes.toString('base64') });
    expect(pdf.kind === 'pdf' && pdf.bytes.equals(bytes)).toBe(true);
    expect(decodePdf({ pdfDocument: '' })).toEqual({ kind: 'none' });
    expect(decodePdf({})).toEqual({ kind: 'none' });
    expect(
      decodePdf({ pdfDocument: Buffer.from('PK\u0003\u0004zip').toString('base64') }).kind,
    ).toBe('not-pdf');
    expect(decodePdf({ pdfDocument: '%PDF-1.4 raw, not base64!' }).kind).toBe('not-pdf');
    expect(decodePdf({ pdfDocument: 42 }).kind).toBe('not-pdf');
  });

  it('writes the value with two decimals and a point', () => {
    expect(formatValue(1234.5)).toBe('1234.50');
    expect(formatValue('99')).toBe('99.00');
    expect(formatValue(null)).toBe('');
  });
});
