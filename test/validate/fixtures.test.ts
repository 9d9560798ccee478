import { describe, expect, it } from 'vitest';
import { validateDocument } from '../../src/kinds/validate-document.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import { colombiaToday } from '../../src/policy/dates.js';
import { loadRequestFixture, type RequestFixtureName } from '../fixtures/requests/index.js';

const cases: [RequestFixtureName, DocumentKind][] = [
  ['invoice', 'invoice'],
  ['credit-note', 'credit-note'],
  ['debit-note', 'debit-note'],
  ['support-document', 'support-document'],
  ['adjustment-note', 'support-adjustment'],
  ['adjustment-note-annul', 'support-adjustment'],
  ['payroll', 'payroll'],
  ['payroll-adjustment', 'payroll'],
  ['pos-content', 'pos'],
];

describe('the shared request fixtures validate clean', () => {
  it.each(cases)('%s is a valid %s', (name, kind) => {
    const request = loadRequestFixture(name);
    expect(
      validateDocument(kind, request, { today: colombiaToday(), issuerNit: '900123456' }),
    ).toEqual([]);
  });
});
