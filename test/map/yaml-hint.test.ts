/** A column name containing ": " written without quotes: the error says to quote it, with the name. */
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import { tempFile } from './helpers.js';

const HEAD = 'name: x\nkinds: [invoice]\n';

async function loadError(yaml: string): Promise<string> {
  const file = await tempFile('m.yaml', HEAD + yaml);
  try {
    await loadMapping(file);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the mapping loaded');
}

describe('a column name with ": " that is not quoted', () => {
  it('in a block value: the YAML error says to quote it', async () => {
    const message = await loadError(
      'key: [numero]\ndocument:\n  CustomerParty:\n    Name: Cliente: Nombre\n',
    );
    expect(message).toContain('Nested mappings are not allowed');
    expect(message).toContain(
      'a column name that contains ": " must be quoted: write "Cliente: Nombre"',
    );
  });

  it('inside { column: … }', async () => {
    const message = await loadError(
      'key: [numero]\ndocument:\n  Name: { column: Cliente: Nombre, required: true }\n',
    );
    expect(message).toContain(
      'a column name that contains ": " must be quoted: write "Cliente: Nombre"',
    );
  });

  it('in a list of names, where YAML reads it as an object', async () => {
    expect(await loadError('key: [Doc: Nro]\ndocument: { A: a }\n')).toContain(
      'key: Invalid input',
    );
    expect(await loadError('key: [Doc: Nro]\ndocument: { A: a }\n')).toContain(
      'if "Doc: Nro" is a column name, a column name that contains ": " must be quoted: write "Doc: Nro"',
    );
    expect(
      await loadError('key: [n]\nframing: { fillDown: [Fecha: Hora] }\ndocument: { A: a }\n'),
    ).toContain('write "Fecha: Hora"');
    expect(await loadError('key: [n]\ndocument: { A: { $when: [Doc: Nro], B: b } }\n')).toContain(
      'document.A.$when: expected a name or a non-empty list of names; if "Doc: Nro" is a column name',
    );
  });

  it('a quoted name loads', async () => {
    const m = await loadMapping(
      await tempFile(
        'm.yaml',
        `${HEAD}key: ["Doc: Nro"]\ndocument:\n  Name: { column: "Cliente: Nombre" }\n`,
      ),
    );
    expect(m.key).toEqual([['Doc: Nro']]);
  });
});
