/**
 * A mapping's `route` sends some documents of a folder as another kind. A kind the configuration disables
 * is one this installation does not send (its documents are issued elsewhere, or not at all): a route to
 * it refuses the configuration at load, naming the mapping key, the value and the kind, instead of sending
 * those documents through another kind's folder.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { isEdocError } from '../../src/errors.js';
import { MINIMAL, writeConfig } from './helpers.js';

const MAPPING = `
name: mixed
kinds: [invoice, credit-note]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [numero]
route: { column: tipo, values: { FV: invoice, NC: credit-note } }
document:
  SerieNumber: { column: numero, required: true }
`;

async function load(kinds: string): Promise<Awaited<ReturnType<typeof loadConfig>> | Error> {
  const { dir, file } = await writeConfig(`${MINIMAL}kinds:\n${kinds}`);
  await writeFile(path.join(dir, 'mixed.yaml'), MAPPING);
  return loadConfig(file, {}, { cwd: dir }).catch((err: Error) => err);
}

describe('a route to a kind that is not enabled', () => {
  it('refuses the configuration, naming the mapping key, the value and the kind', async () => {
    const result = await load(
      '  invoice: { mapping: mixed.yaml }\n  credit-note: { enabled: false }\n',
    );
    expect(isEdocError(result, 'EDOC_CONFIG_MAPPING')).toBe(true);
    expect((result as Error).message).toMatch(
      /kinds\.invoice\.mapping: Mapping .*mixed\.yaml: route sends "NC" documents as credit-note, which is not enabled \(kinds\.credit-note\.enabled: false\)/,
    );
  });

  it('loads when the routed kind is enabled, or when the routing kind itself is disabled', async () => {
    expect(await load('  invoice: { mapping: mixed.yaml }\n')).not.toBeInstanceOf(Error);
    expect(
      await load(
        '  invoice: { mapping: mixed.yaml, enabled: false }\n  credit-note: { enabled: false }\n',
      ),
    ).not.toBeInstanceOf(Error);
  });
});
