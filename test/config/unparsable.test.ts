/**
 * A configuration file that cannot be read as plain data is EDOC_CONFIG_INVALID naming the file (the
 * CLI exits 2, which the systemd unit does not restart), never a library's bare exception: an alias
 * bomb, an alias that contains itself, binary data, nesting past the parser's stack, a huge file.
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { bestEffortSecrets } from '../../src/config/secrets.js';
import { MAX_CONFIG_BYTES } from '../../src/config/yaml-text.js';
import { EdocError } from '../../src/errors.js';
import { MINIMAL, writeConfig } from './helpers.js';

/** Nine times nine times ... : 9^5 = 59,049 strings from five short lines (the "billion laughs"). */
export const ALIAS_BOMB = `${MINIMAL}
x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
x-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
x-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
x-e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]
`;

export const SELF_ALIAS = `${MINIMAL}\nx-loop: &loop\n  again: *loop\n`;

async function refusal(content: string | Buffer): Promise<{ err: EdocError; file: string }> {
  const { file, dir } = await writeConfig('');
  await writeFile(file, content);
  const err = await loadConfig(file, {}, { cwd: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EdocError);
  expect((err as EdocError).code).toBe('EDOC_CONFIG_INVALID');
  expect((err as EdocError).message.startsWith(`${file}`)).toBe(true);
  expect((err as EdocError).message).not.toContain('\n');
  // what a failed load leaves to scrub with must not hang or throw either
  expect(bestEffortSecrets(file, {}, dir)).toEqual([]);
  return { err: err as EdocError, file };
}

describe('a file that is not plain data is EDOC_CONFIG_INVALID naming the file', () => {
  test('an alias bomb (59,049 strings from five lines) is refused by the alias bound, not expanded', async () => {
    const { err } = await refusal(ALIAS_BOMB);
    expect(err.message).toContain('not valid YAML: aliases expand to too much data');
  });

  test('a thousand companies sharing anchors (rate: *r, <<: *defaults) load: sharing settings is no alias bomb', async () => {
    const companies = Array.from({ length: 1000 }, (_, i) =>
      [
        `  - <<: *defaults`,
        `    alias: c${i}`,
        `    id: ${2000 + i}`,
        `    nit: "${900_000_000 + i}"`,
        `    apiKey: key-${i}-0123456789`,
        '    rate: *r',
      ].join('\n'),
    );
    const { file, dir } = await writeConfig(
      `x-rate: &r { requestsPerSecond: 5, concurrency: 2 }\nx-defaults: &defaults { userId: 7 }\ncompanies:\n${companies.join('\n')}\n`,
    );
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.companies).toHaveLength(1000);
    expect(config.companies[999]).toMatchObject({
      alias: 'c999',
      rate: { requestsPerSecond: 5, concurrency: 2 },
    });
  });

  test('an alias that contains itself (a cycle) is refused naming where', async () => {
    const { err } = await refusal(SELF_ALIAS);
    expect(err.message).toContain(
      'not valid YAML: x-loop.again: an alias refers to a node that contains it (a cycle)',
    );
    const top = await refusal(`${MINIMAL}\nx-list: &l [1, *l]\n`);
    expect(top.err.message).toContain('x-list[1]: an alias refers to a node that contains it');
  });

  test('binary data, nesting deeper than the parser goes, and nesting deeper than any setting', async () => {
    expect(
      (
        await refusal(
          Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff, 0xfe, 0x0a, 0x3a]),
        )
      ).err.message,
    ).toContain('binary data');
    expect((await refusal('['.repeat(100_000))).err.message).toContain(
      ':1: not valid YAML: brackets nested more than 64 levels deep',
    );
    expect(
      (await refusal(`x-deep: ${'['.repeat(100)}1${']'.repeat(100)}\n${MINIMAL}`)).err.message,
    ).toContain('nested more than 64 levels');
    expect(
      (
        await refusal(
          `${MINIMAL}x-deep:\n${Array.from({ length: 80 }, (_, i) => `${' '.repeat(i + 2)}k${i}:`).join('\n')} 1\n`,
        )
      ).err.message,
    ).toContain('nested more than 64 levels');
  });

  test(`a file over ${MAX_CONFIG_BYTES} bytes is refused before it is read`, async () => {
    const big = `${MINIMAL}\n${'# padding padding padding padding padding padding padding padding\n'.repeat(Math.ceil(MAX_CONFIG_BYTES / 64) + 1)}`;
    const { err } = await refusal(big);
    expect(err.message).toContain(`a configuration file is at most ${MAX_CONFIG_BYTES} bytes`);
  });

  test('merge keys still work, and an alias used a few times is fine', async () => {
    const { file, dir } = await writeConfig(`
x-rate: &rate { requestsPerSecond: 3, concurrency: 2 }
companies:
  - { alias: a, id: 1, nit: "900123456", apiKey: key-a-0123456789, rate: *rate }
  - { alias: b, id: 2, nit: "900123457", apiKey: key-b-0123456789, rate: { <<: *rate, concurrency: 1 } }
`);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.companies.map((c) => c.rate)).toEqual([
      { requestsPerSecond: 3, concurrency: 2 },
      { requestsPerSecond: 3, concurrency: 1 },
    ]);
  });
});
