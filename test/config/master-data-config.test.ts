/**
 * `masterData` in the configuration: a table's folder resolves against the configuration's folder, its
 * defaults, and clear refusals at load — a mapping reading a table or a column the configuration does
 * not declare, a table that keeps its key twice, a bad table name or maxAge.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { isEdocError } from '../../src/errors.js';
import { MINIMAL, writeConfig } from './helpers.js';

const MAPPING = `
name: sales
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Factura]
document:
  SerieNumber: Factura
  CustomerParty:
    Name: { expr: 'lookup(customers, Cliente, [Razón social])', required: true }
`;

async function load(
  masterData: string,
  mapping = MAPPING,
): Promise<{ dir: string; result: Awaited<ReturnType<typeof loadConfig>> | Error }> {
  const { dir, file } = await writeConfig(
    `${MINIMAL}kinds:\n  invoice: { mapping: sales.yaml }\n${masterData}`,
  );
  await writeFile(path.join(dir, 'sales.yaml'), mapping);
  const result = await loadConfig(file, {}, { cwd: dir }).catch((err: Error) => err);
  return { dir, result };
}

describe('masterData configuration', () => {
  it('resolves the folder and fills the defaults', async () => {
    const { dir, result } = await load(
      'masterData:\n  tables:\n    customers: { folder: master/terceros, key: Identificación, columns: [Razón social] }\n',
    );
    if (result instanceof Error) throw result;
    expect(result.masterData.every).toBe(10_000);
    expect(result.masterData.tables.customers).toEqual({
      folder: path.join(dir, 'master/terceros'),
      key: 'Identificación',
      columns: ['Razón social'],
      maxAge: 86_400_000,
      encoding: 'auto',
      delimiter: 'auto',
    });
  });

  it('refuses a mapping that reads a table or a column not declared, naming the mapping key and the table', async () => {
    const none = (await load('')).result;
    expect(isEdocError(none, 'EDOC_CONFIG_MAPPING')).toBe(true);
    expect((none as Error).message).toMatch(
      /kinds\.invoice\.mapping: Mapping .*sales\.yaml: lookup\(\) reads master table "customers", which is not configured under masterData\.tables \(none is\)/,
    );
    const column = (
      await load(
        'masterData:\n  tables:\n    customers: { folder: m, key: Identificación, columns: [Correo] }\n',
      )
    ).result;
    expect(isEdocError(column, 'EDOC_CONFIG_MAPPING')).toBe(true);
    expect((column as Error).message).toContain(
      'lookup() reads column "Razón social" of master table "customers", which masterData.tables.customers.columns does not list (Identificación, Correo)',
    );
  });

  it('refuses a table that keeps its key twice, a bad name and a maxAge under a minute, naming each key', async () => {
    const refused = async (tables: string): Promise<string> => {
      const { result } = await load(`masterData:\n  tables:\n${tables}`);
      expect(isEdocError(result, 'EDOC_CONFIG_INVALID')).toBe(true);
      return (result as Error).message;
    };
    const twice = await refused(
      '    customers: { folder: m, key: Id, columns: [Id, Nombre, Nombre] }\n',
    );
    expect(twice).toContain(
      'masterData.tables.customers.columns[0]: "Id" is the key; list only the other columns',
    );
    expect(twice).toContain('masterData.tables.customers.columns[2]: "Nombre" is listed twice');
    expect(
      await refused('    customers: { folder: m, key: Id, columns: [N], maxAge: 5s }\n'),
    ).toContain(
      'masterData.tables.customers.maxAge: must be a duration of at least 60s such as 12h, 1d or 7d',
    );
    expect(
      await refused(
        '    customers: { folder: m, key: Id, columns: [N] }\n    "2x": { folder: m, key: Id, columns: [N] }\n',
      ),
    ).toContain(
      'masterData.tables.2x: a table name is an ASCII letter (A-Z, a-z), then ASCII letters, digits or _ (at most 40 characters)',
    );
  });
});
