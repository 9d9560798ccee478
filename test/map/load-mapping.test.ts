import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isEdocError } from '../../src/errors.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { mapping, tempFile } from './helpers.js';

const base = {
  name: 'mini',
  kinds: ['invoice'],
  key: ['numero'],
  document: { SerieNumber: { column: 'numero', required: true } },
};

async function loadError(data: unknown): Promise<{ code: string; message: string }> {
  const file = await tempFile('m.yaml', '');
  await writeFile(file, typeof data === 'string' ? data : stringify(data));
  const err = await loadMapping(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isEdocError(err, 'EDOC_MAPPING_INVALID')).toBe(true);
  const message = (err as Error).message;
  expect(message).toContain(file);
  return { code: 'EDOC_MAPPING_INVALID', message };
}

describe('loading mappings', () => {
  it('loads the three shipped mappings', async () => {
    expect((await mapping('sales')).kinds).toEqual(['invoice', 'credit-note', 'debit-note']);
    expect((await mapping('support-document')).key).toEqual([['prefijo', 'numero'], ['documento']]);
    expect((await mapping('payroll')).derive.map((d) => d.name)).toEqual(['payroll-totals']);
  });

  it('names the key path of an unknown conversion', async () => {
    const { message } = await loadError({
      ...base,
      document: { Customer: { Name: { column: 'n', as: 'money' } } },
    });
    expect(message).toContain('document.Customer.Name.as');
  });

  it('names an unknown key at the top level', async () => {
    expect((await loadError({ ...base, colums: {} })).message).toMatch(/colums/);
  });

  it('refuses a lookup table that does not exist', async () => {
    const { message } = await loadError({
      ...base,
      document: { T: { column: 't', lookup: 'nope' } },
    });
    expect(message).toContain('document.T.lookup');
    expect(message).toContain('"nope"');
  });

  it('refuses a value with two sources', async () => {
    expect(
      (await loadError({ ...base, document: { T: { column: 't', const: 'x' } } })).message,
    ).toContain('document.T: a value takes exactly one of');
  });

  it('refuses position outside line fields', async () => {
    expect((await loadError({ ...base, document: { N: { position: true } } })).message).toContain(
      'document.N.position',
    );
  });

  it('refuses a date pattern without a year', async () => {
    expect((await loadError({ ...base, format: { date: 'dd/MM' } })).message).toContain(
      'format.date',
    );
  });

  it('refuses an unknown derivation', async () => {
    expect((await loadError({ ...base, derive: 'magic-totals' })).message).toContain(
      'derive[0]: unknown derivation "magic-totals"',
    );
  });

  it('refuses broken YAML', async () => {
    expect((await loadError('name: [unclosed')).message).toContain('not valid YAML');
  });
});
