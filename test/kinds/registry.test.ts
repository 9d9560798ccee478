/**
 * The kinds registry (src/kinds/): every kind of PRODUCT's kinds table has a descriptor, text becomes a
 * kind only through parseKind / isDocumentKind, and each descriptor's endpoint is the operation of
 * service/endpoints.ts its send really calls (over HTTP, at the emulator).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { familyOf, type DocKind } from '../../src/emulator/state.js';
import {
  DOCUMENT_KINDS,
  KINDS,
  isDocumentKind,
  kindOf,
  kindsSharingNumbers,
  parseKind,
  type DocumentKind,
} from '../../src/kinds/index.js';
import { ServiceClient } from '../../src/service/client.js';
import { ENDPOINTS } from '../../src/service/endpoints.js';
import {
  COMPANY_MAIN,
  ROOT,
  startTestEmulator,
  type TestEmulator,
} from '../helpers/daemon-harness.js';

/** PRODUCT.md, "Kinds and the endpoint each one uses". */
const PRODUCT_TABLE: Record<DocumentKind, string> = {
  invoice: 'E1',
  'credit-note': 'E1',
  'debit-note': 'E1',
  payroll: 'E2',
  'support-document': 'E5',
  'support-adjustment': 'E6',
  pos: 'E3',
};

const EXAMPLE: Record<DocumentKind, string> = {
  invoice: 'invoices-json.json',
  'credit-note': 'credit-notes-json.json',
  'debit-note': 'debit-notes-json.json',
  payroll: 'payroll-json.json',
  'support-document': 'support-documents-json.json',
  'support-adjustment': 'support-adjustments-json.json',
  pos: 'pos-json.json',
};

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('kinds registry', () => {
  it("has one descriptor per kind of PRODUCT's table, with its endpoint, in the table's order", () => {
    expect(DOCUMENT_KINDS).toEqual(Object.keys(PRODUCT_TABLE));
    expect(KINDS.map((d) => d.name)).toEqual(DOCUMENT_KINDS);
    for (const kind of DOCUMENT_KINDS) {
      expect(kindOf(kind).name).toBe(kind);
      expect(kindOf(kind).endpoint, kind).toBe(PRODUCT_TABLE[kind]);
      expect(ENDPOINTS[kindOf(kind).endpoint].method, kind).toBe('POST');
    }
  });

  it('parses the kind names and nothing else, with an error that names where the text came from', () => {
    for (const kind of DOCUMENT_KINDS) expect(parseKind(kind, 'test')).toBe(kind);
    for (const text of [
      'Invoice',
      'invoice ',
      '',
      'credit_note',
      'toString',
      '__proto__',
      'received',
    ]) {
      expect(isDocumentKind(text), text).toBe(false);
      const err = thrown(() => parseKind(text, 'ledger file 12'));
      expect(isEdocError(err, 'EDOC_KIND_UNKNOWN'), text).toBe(true);
      expect((err as Error).message).toContain('ledger file 12');
      expect((err as Error).message).toContain(
        'is not a document kind (one of invoice, credit-note, debit-note, payroll, support-document, support-adjustment, pos)',
      );
    }
    expect(isDocumentKind(undefined)).toBe(false);
    expect(isDocumentKind(7)).toBe(false);
  });

  it('quotes hostile text short and on one line', () => {
    const message = (
      thrown(() => parseKind(`x\n${'y'.repeat(1_000_000)}`, 'ledger file 1')) as Error
    ).message;
    expect(message.length).toBeLessThan(300);
    expect(message).not.toContain('\n');
  });

  it("shares numbers within E1 only, as the emulator's families do", () => {
    for (const kind of ['invoice', 'credit-note', 'debit-note'] as const) {
      expect(kindsSharingNumbers(kind)).toEqual(['invoice', 'credit-note', 'debit-note']);
    }
    for (const kind of ['payroll', 'support-document', 'support-adjustment', 'pos'] as const)
      expect(kindsSharingNumbers(kind)).toEqual([kind]);
    const emulator: Record<DocKind, string> = {
      invoice: 'invoice',
      'credit-note': 'invoice',
      'debit-note': 'invoice',
      payroll: 'payroll',
      'payroll-adjustment': 'payroll',
      'payroll-elimination': 'payroll',
      'support-document': 'support-document',
      'support-adjustment': 'support-adjustment',
      pos: 'pos',
      'pos-credit-note': 'pos',
      'pos-debit-note': 'pos',
    };
    for (const [kind, family] of Object.entries(emulator))
      expect(familyOf(kind as DocKind), kind).toBe(family);
  });
});

describe('each descriptor sends to its endpoint', () => {
  let emulator: TestEmulator;
  let client: ServiceClient;
  const company = { id: COMPANY_MAIN.id, apiKey: COMPANY_MAIN.apiKey, userId: COMPANY_MAIN.userId };

  beforeAll(async () => {
    emulator = await startTestEmulator([COMPANY_MAIN]);
    client = new ServiceClient({ baseUrl: emulator.url });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  async function firstExample(kind: DocumentKind): Promise<unknown> {
    const list = JSON.parse(
      await readFile(path.join(ROOT, 'examples', EXAMPLE[kind]), 'utf8'),
    ) as unknown[];
    return list[0];
  }

  async function operationsCalled(send: () => Promise<unknown>): Promise<string[]> {
    await emulator.client.resetStats();
    await send();
    return Object.keys((await emulator.client.stats()).requests);
  }

  for (const kind of DOCUMENT_KINDS) {
    it(`${kind}: ${PRODUCT_TABLE[kind]}`, async () => {
      const request = await firstExample(kind);
      const ops = await operationsCalled(() =>
        kindOf(kind).send(client, company, request, {
          pos: { endpoint: 'E3' },
          fileName: 'example.json',
        }),
      );
      expect(ops).toEqual([kindOf(kind).endpoint]);
    });
  }

  it('pos: E4 where kinds.pos.endpoint says so', async () => {
    const request = await firstExample('pos');
    const ops = await operationsCalled(() =>
      kindOf('pos').send(client, company, request, {
        pos: { endpoint: 'E4' },
        fileName: 'example.json',
      }),
    );
    expect(ops).toEqual(['E4']);
  });
});
