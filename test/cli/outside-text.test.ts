/**
 * Names and messages from outside printed by the command line: an escape sequence in a file name or a
 * document's prefix (ESC [8m hides what follows, ESC ]0; retitles the window, U+202E turns the text
 * around) is shown as `\uXXXX`, never sent to the terminal; `--json` still holds the names as they are.
 * A company's API key in such text (a file named after it) is `[redacted]`, as in the log, though
 * `status` and `show` load the configuration without its keys. Child processes against an emulator on
 * port 0.
 */
import { beforeAll, describe, expect } from 'vitest';
import { formatConsoleLine } from '../../src/log/console-format.js';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, BUILD_TIMEOUT_MS);

const NAME = 'caida\u001b[8m oculta\u202egpj.json';
const PREFIX = '\u001b]0;pwned\u0007S';
const SECRET_NAME = `export ${COMPANY_MAIN.apiKey}.json`;
/** What a terminal would act on: C0 but newline and tab, DEL, C1, bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('text from outside printed by the commands', () => {
  test('status and show print escape sequences as \\uXXXX and an API key as [redacted]', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({
      faults: { errorRate: 1 },
      companies: [COMPANY_MAIN],
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    const daemon = await startDaemon();
    const doc = invoice(990_300_011);
    doc.SeriePrefix = PREFIX;
    await p.drop('invoice', NAME, jsonText([doc]));
    await p.drop('invoice', SECRET_NAME, jsonText([invoice(990_300_012)]));
    // the outbox name is made folder-safe, and the log scrubs the key: the log says when each is done
    for (const file of [NAME, 'export [redacted].json'])
      await daemon.waitForLog((l) => l.msg === 'file complete' && l.file === file);

    const status = await runCli(p, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(ACTIVE);
    expect(status.stdout).toContain('caida\\u001b[8m oculta\\u202egpj.json');
    expect(status.stdout).toContain('main/invoice/\\u001b]0;pwned\\u0007S/990300011');

    const show = await runCli(p, ['show', NAME]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(ACTIVE);
    expect(show.stdout).toMatch(/^caida\\u001b\[8m oculta\\u202egpj\.json — main\/invoice/m);
    // the columns line up as printed: the key column is as wide as the escaped key
    const [header, rule] = show.stdout.split('\n').filter((l) => /^(#|-)\s/.test(l));
    expect(rule.split('  ')[1].length).toBe(
      'main/invoice/\\u001b]0;pwned\\u0007S/990300011'.length,
    );
    expect(header).toMatch(/^#\s+key/);

    const json = await runCli(p, ['show', NAME, '--json']);
    expect(json.stdout).not.toMatch(ACTIVE);
    const parsed = JSON.parse(json.stdout) as { files: { name: string }[] };
    expect(parsed.files[0].name).toBe(NAME);

    for (const args of [
      ['status'],
      ['status', '--json'],
      ['show', SECRET_NAME],
      ['show', SECRET_NAME, '--json'],
    ]) {
      const run = await runCli(p, args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout, args.join(' ')).not.toContain(COMPANY_MAIN.apiKey);
      expect(run.stdout, args.join(' ')).toContain('export [redacted].json');
    }
  });

  test("the log's console lines show control characters of a value as \\uXXXX", () => {
    const line = formatConsoleLine(
      JSON.stringify({
        level: 'info',
        time: '2026-11-29T10:00:00.000Z',
        msg: 'file taken',
        file: NAME,
      }),
      true,
    );
    // the level's own colour is the only escape sequence left
    expect(line.replace(/\u001b\[\d+m/g, '')).not.toMatch(ACTIVE); // eslint-disable-line no-control-regex
    expect(line).toContain('file=caida\\u001b[8m oculta\\u202egpj.json');
  });
});
