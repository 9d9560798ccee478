/**
 * The mapping stage plugged into the daemon: the shipped ERP examples
 * (Windows-1252 CSV, `;`, decimal comma) dropped into the inbox with the
 * shipped mappings end accepted, reported by CSV rows, and issued once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, ROOT, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

let emulator: TestEmulator;
let project: Project;

const mapping = (name: string) => ({ mapping: path.join(ROOT, 'config/mappings', name) });

const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon({
    kinds: {
      invoice: mapping('sales.csv.yaml'),
      'credit-note': mapping('sales.csv.yaml'),
      'debit-note': mapping('sales.csv.yaml'),
      payroll: mapping('payroll.csv.yaml'),
    },
  }));
}, 120_000);

async function dropExample(kind: string, name: string): Promise<void> {
  await project.drop(kind, name, await readFile(path.join(ROOT, 'examples', name)));
}

describe('delimited ERP exports through the daemon', () => {
  test('the example invoices, notes and payroll are accepted with their CSV rows in result.json', async () => {
    await dropExample('invoice', 'invoices.csv');
    await dropExample('payroll', 'payroll.csv');
    const invoices = await project.finalResult('invoice', 'invoices.csv');
    expect(invoices.counts).toMatchObject({ total: 3, accepted: 3 });
    expect(invoices.documents.map((d) => d.key)).toEqual([
      'main/invoice/SETP/990000101',
      'main/invoice/SETP/990000102',
      'main/invoice/SETP/990000103',
    ]);
    expect(invoices.documents.every((d) => (d.source.rows ?? []).length > 0)).toBe(true);
    const payroll = await project.finalResult('payroll', 'payroll.csv');
    expect(payroll.counts).toMatchObject({ total: 2, accepted: 2 });

    await dropExample('credit-note', 'credit-notes.csv');
    await dropExample('debit-note', 'debit-notes.csv');
    expect((await project.finalResult('credit-note', 'credit-notes.csv')).counts).toMatchObject({
      total: 1,
      accepted: 1,
    });
    expect((await project.finalResult('debit-note', 'debit-notes.csv')).counts).toMatchObject({
      total: 1,
      accepted: 1,
    });

    const issued = (await emulator.client.issued())
      .map((d) => `${d.kind}/${d.documentNumber}`)
      .sort();
    expect(issued).toEqual([
      'credit-note/NC101',
      'debit-note/ND101',
      'invoice/SETP990000101',
      'invoice/SETP990000102',
      'invoice/SETP990000103',
      'payroll/NOM101',
      'payroll/NOM102',
    ]);
  });
});
