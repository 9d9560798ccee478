/**
 * Issue 14, numbering-range watch with the real daemon (child process) and CLI: `status` shows the
 * ranges the daemon last read (numbers and days left; `--json` too) without asking the service and
 * without keys; `ranges list` shows them with the ledger's use; a document whose number is outside every
 * active range of its prefix is refused by the daemon with nothing sent; where E10 cannot be read
 * (the configured NIT is not the company's: 403) nothing is refused on its account.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect } from 'vitest';
import { colombiaToday, daysBetween } from '../../src/policy/dates.js';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

interface StatusRanges {
  ranges: {
    savedAt: number;
    companies: { company: string; readAt?: number; error?: string }[];
    ranges: {
      company: string;
      prefix: string;
      from: number;
      to: number;
      lastUsed?: number;
      numbersLeft: number;
      daysLeft: number;
    }[];
  } | null;
}

describe('numbering ranges in status and ranges list, and the local refusal, with the real daemon', () => {
  test("status shows what the daemon read (no key needed); ranges list adds the ledger's use; out of range is refused, nothing sent", async ({
    daemonProject,
  }) => {
    const { project, emulator, startDaemon, cli } = await daemonProject();
    const before = await cli(['status']);
    expect(before.stdout).toContain('Numbering ranges: not read yet');
    const daemon = await startDaemon();
    await daemon.waitForLog((l) => l.msg === 'watching the inbox');
    await project.drop(
      'invoice',
      'two.json',
      jsonText([invoice(990_000_010, COMPANY_MAIN), invoice(990_000_011, COMPANY_MAIN)]),
    );
    expect((await project.finalResult('invoice', 'two.json')).counts.accepted).toBe(2);
    // outside SETP 990000000–995000000: refused by the daemon after one re-read of E10, never sent
    await emulator.client.resetStats();
    await project.drop('invoice', 'beyond.json', jsonText([invoice(999_000_001, COMPANY_MAIN)]));
    const beyond = await project.finalResult('invoice', 'beyond.json');
    expect(beyond.counts).toMatchObject({ total: 1, invalid: 1 });
    expect(beyond.documents[0].errors[0]).toMatchObject({ code: 'EDOC_VALIDATE_OUT_OF_RANGE' });
    expect(beyond.documents[0].errors[0].message).toContain('SETP999000001');
    expect((await emulator.client.stats()).requests).toEqual({ E10: { 200: 1 } });
    expect((await emulator.client.documents()).map((d) => d.number)).not.toContain('999000001');

    // status reads what the daemon stored, with the key gone from the configuration
    const config = parse(await readFile(project.configFile, 'utf8')) as {
      companies: Record<string, unknown>[];
    };
    config.companies[0].apiKey = '${EDOC_NO_SUCH_KEY}';
    const keyless = `${project.configFile}.keyless.yaml`;
    await writeFile(keyless, stringify(config));
    const setpLeft = 995_000_000 - 990_000_011;
    const status = await eventually(async () => {
      const run = await cli(['status', '--json', '--config', keyless], { config: false });
      const json = JSON.parse(run.stdout) as StatusRanges;
      return json.ranges?.ranges.find((r) => r.prefix === 'SETP')?.lastUsed === 990_000_011
        ? json
        : undefined;
    }, 'status --json showing SETP used up to 990000011');
    expect(status.ranges?.ranges.find((r) => r.prefix === 'SETP')).toMatchObject({
      company: 'main',
      from: 990_000_000,
      to: 995_000_000,
      numbersLeft: setpLeft,
      daysLeft: daysBetween(colombiaToday(), '2030-01-19'),
    });
    expect(status.ranges?.companies[0]).toMatchObject({ company: 'main' });
    const text = await cli(['status', '--config', keyless], { config: false });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Numbering ranges (as the daemon last read them');
    expect(text.stdout).toMatch(
      new RegExp(
        `^main +SETP +990000000 +995000000 +990000011 +${setpLeft} +2030-01-19 +\\d+$`,
        'm',
      ),
    );
    expect((await emulator.client.stats()).requests).toEqual({ E10: { 200: 1 } }); // status asked the service nothing

    const list = await cli(['ranges', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`^SETP +990000000 +995000000 .* 990000011 +${setpLeft} +\\d+ +ok$`, 'm'),
    );
  });

  test('where E10 cannot be read, a number outside the ranges is not refused: the document is sent (and the authority rejects it)', async ({
    daemonProject,
  }) => {
    // the configuration names another NIT than the one the service registered: E10 answers 403; E1 does not check it
    const stranger = { ...COMPANY_MAIN, nit: '800197268', checkDigit: '4' };
    const { project, emulator, startDaemon } = await daemonProject({
      companies: [stranger],
      seed: [COMPANY_MAIN],
    });
    const daemon = await startDaemon();
    await daemon.waitForLog((l) => l.code === 'EDOC_RANGES_UNREADABLE');
    await project.drop('invoice', 'beyond.json', jsonText([invoice(999_000_002, stranger)]));
    const result = await project.finalResult('invoice', 'beyond.json');
    expect(result.documents[0]).toMatchObject({ status: 'rejected' });
    expect(result.documents[0].errors.map((e) => e.message).join(' ')).toContain('FAD05');
    expect((await emulator.client.documents()).map((d) => d.number)).toContain('999000002');
    expect(JSON.stringify(daemon.logLines())).not.toContain(COMPANY_MAIN.apiKey);
  });
});
