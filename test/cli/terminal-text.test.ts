/**
 * Names and messages from outside printed by the command line: an escape sequence in a file name or a
 * document's prefix (ESC [8m hides what follows, ESC ]0; retitles the window, U+202E turns the text
 * around) is shown as `\uXXXX`, never sent to the terminal; `--json` still holds the names as they are.
 * Child processes against an emulator on port 0.
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
/** What a terminal would act on: C0 but newline and tab, DEL, C1, bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('text from outside on a terminal', () => {
  test('status and show print escape sequences of a file name and a key as \\uXXXX', async ({
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
    // the outbox name is made folder-safe; the log says when the file is done
    await daemon.waitForLog((l) => l.msg === 'file complete');

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
