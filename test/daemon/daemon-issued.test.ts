/**
 * Issue 12 item 7 through the real daemon against the emulator over HTTP: what was issued is in
 * result.json as data (`issued`), per kind, matching what the emulator actually issued — the
 * document's own number, or the one the service assigned (read from its record or its notice), and
 * the POS record's cude, qr and idDocumento. A service-numbered document becomes known by its
 * assigned number: its ledger key, so a later file carrying that number is a duplicate, not sent.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  type Project,
  type ResultDocumentJson,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import {
  invoice,
  jsonText,
  payroll,
  pos,
  supportAdjustment,
  supportDocument,
  supportMarker,
} from '../helpers/documents.js';
import type { IssuedDocument } from '../helpers/emulator-client.js';

type Issued = Record<string, string | number | null>;
type Doc = ResultDocumentJson & { issued: Issued | null };

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon());
}, 240_000);

async function documents(p: Project, kind: string, name: string): Promise<Doc[]> {
  const result = await p.finalResult(kind, name);
  expect(
    result.documents.map((d) => d.status),
    `${kind}/${name}`,
  ).toEqual(result.documents.map(() => 'accepted'));
  return result.documents as Doc[];
}

/** The emulator's accepted document whose stored request satisfies `match`. */
async function emulated(
  kind: string,
  match: (request: Record<string, unknown>) => boolean,
): Promise<IssuedDocument> {
  const docs = (await emulator.client.documents({ kind, withRequest: true })).filter(
    (d) => d.accepted,
  );
  const found = docs.filter((d) => match(d.request as Record<string, unknown>));
  expect(found, `one ${kind} at the emulator`).toHaveLength(1);
  return found[0];
}

function ledgerKey(p: Project, name: string, index: number): string | null {
  return (
    p.ledgerQuery<{ key: string | null }>(
      'SELECT d.key FROM documents d JOIN files f ON f.id = d.file_id WHERE f.name = ? AND d.idx = ?',
      name,
      index,
    )[0]?.key ?? null
  );
}

describe('result.json says what was issued, as data', () => {
  test('E1: an invoice with its own number and one without (the service assigns SETP…)', async () => {
    const unnumbered = invoice(0);
    delete unnumbered.SerieNumber;
    unnumbered.CorrelationDocumentId = 'ERP-E1-unnumbered';
    await project.drop('invoice', 'e1.json', jsonText([invoice(990_300_001), unnumbered]));
    const [own, assigned] = await documents(project, 'invoice', 'e1.json');
    expect(own.issued).toEqual({ prefix: 'SETP', number: '990300001', numberedBy: 'erp' });
    const at = await emulated('invoice', (r) => r.CorrelationDocumentId === 'ERP-E1-unnumbered');
    expect(assigned.issued).toEqual({
      prefix: at.prefix,
      number: at.number,
      numberedBy: 'service',
    });
    expect(at.prefix).toBe('SETP');
    expect(assigned.key).toBe(`main/invoice/SETP/${at.number}`);
    expect(ledgerKey(project, 'e1.json', 1)).toBe(`main/invoice/SETP/${at.number}`);
  });

  test('E2: a payroll with its own consecutive and one without (the service assigns NOM…)', async () => {
    const unnumbered = payroll(0);
    (unnumbered.NumeroSecuenciaXML as Record<string, unknown>).Consecutivo = '';
    unnumbered.CorrelationDocumentId = 'ERP-E2-unnumbered';
    await project.drop('payroll', 'e2.json', jsonText([payroll(3001)]));
    const [own] = await documents(project, 'payroll', 'e2.json');
    expect(own.issued).toEqual({ prefix: 'NOM', number: '3001', numberedBy: 'erp' });
    await project.drop('payroll', 'e2-sin-numero.json', jsonText([unnumbered]));
    const [assigned] = await documents(project, 'payroll', 'e2-sin-numero.json');
    const at = await emulated('payroll', (r) => r.CorrelationDocumentId === 'ERP-E2-unnumbered');
    expect(assigned.issued).toEqual({ prefix: 'NOM', number: at.number, numberedBy: 'service' });
    expect(assigned.key).toBe(`main/payroll/NOM/${at.number}`);
  });

  test('E5 without a number, E6 without a number on it; the assigned DS number dropped again later with other content is EDOC_ISSUED_OTHER_CONTENT, not sent', async () => {
    await project.drop(
      'support-document',
      'e5.json',
      jsonText([supportDocument(undefined, 'MARK-E5-A')]),
    );
    const [ds] = await documents(project, 'support-document', 'e5.json');
    const at = await emulated(
      'support-document',
      (r) => supportMarker(r, /MARK-E5-A/) !== undefined,
    );
    expect(ds.issued).toEqual({ prefix: 'DS', number: at.number, numberedBy: 'service' });
    expect(ds.key).toBe(`main/support-document/DS/${at.number}`);

    const note = supportAdjustment(0, `DS${at.number}`, at.cufe);
    delete note.SerieNumber;
    await project.drop('support-adjustment', 'e6.json', jsonText([note]));
    const [nds] = await documents(project, 'support-adjustment', 'e6.json');
    const noteAt = await emulated('support-adjustment', (r) =>
      JSON.stringify(r.DocumentReferences).includes(at.cufe),
    );
    expect(nds.issued).toEqual({
      prefix: noteAt.prefix,
      number: noteAt.number,
      numberedBy: 'service',
    });
    expect(noteAt.prefix).toBe('NDS');

    const e5Before = (await emulator.client.stats()).requests.E5;
    await project.drop(
      'support-document',
      'e5-again.json',
      jsonText([supportDocument(Number(at.number), 'MARK-E5-B')]),
    );
    const again = await project.finalResult('support-document', 'e5-again.json');
    expect(again.documents.map((d) => d.status)).toEqual(['duplicate']);
    // other content than what was issued under that number (another marker): named as such, not a plain duplicate
    expect(again.documents[0].errors.map((e) => e.code)).toContain('EDOC_ISSUED_OTHER_CONTENT');
    expect((await emulator.client.stats()).requests.E5).toEqual(e5Before);
  });

  test('E3 POS: own number and one without; prefix, number, cude, qr and idDocumento as the record gave them', async () => {
    const unnumbered = pos(0);
    delete (unnumbered.documento as Record<string, unknown>).numeroDocumento;
    await project.drop('pos', 'e3.json', jsonText([pos(5001)]));
    const [own] = await documents(project, 'pos', 'e3.json');
    const ownAt = await emulated('pos', (r) => r.numeroDocumento === '5001');
    expect(own.issued).toEqual({
      prefix: 'POS',
      number: '5001',
      numberedBy: 'erp',
      idDocumento: ownAt.id,
      cude: ownAt.cufe,
      qr: `https://catalogo-vpfe.emulator.local/document/searchqr?documentkey=${ownAt.cufe}`,
    });
    const before = new Set((await emulator.client.issued({ kind: 'pos' })).map((d) => d.id));
    await project.drop('pos', 'e3-sin-numero.json', jsonText([unnumbered]));
    const [assigned] = await documents(project, 'pos', 'e3-sin-numero.json');
    const [at] = (await emulator.client.issued({ kind: 'pos' })).filter((d) => !before.has(d.id));
    expect(assigned.issued).toMatchObject({
      prefix: 'POS',
      number: at.number,
      numberedBy: 'service',
      idDocumento: at.id,
      cude: at.cufe,
    });
    expect(assigned.key).toBe(`main/pos/POS/${at.number}`);
  });

  test('E4 POS (JSON body): the same record fields', async () => {
    // a second project on the same service, its daemon beside the first
    const { project: p } = await resources.daemonProject({
      emulator,
      kinds: { pos: { endpoint: 'E4' } },
    });
    await resources.startDaemon(p);
    await p.drop('pos', 'e4.json', jsonText([pos(5101)]));
    const [doc] = await documents(p, 'pos', 'e4.json');
    const at = await emulated('pos', (r) => r.numeroDocumento === '5101');
    expect(doc.issued).toMatchObject({
      prefix: 'POS',
      number: '5101',
      numberedBy: 'erp',
      idDocumento: at.id,
      cude: at.cufe,
    });
    expect(typeof doc.issued?.qr).toBe('string');
    expect((await emulator.client.stats()).requests.E4).toBeDefined();
  });
});
