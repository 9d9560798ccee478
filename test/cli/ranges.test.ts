/** `edoc-bridge ranges list|create` as a real child process against the emulator (E10, E11). */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildRangeRequest, expandDate } from '../../src/cli/range-request.js';
import { rangeFlags } from '../../src/cli/commands/ranges-shown.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { colombiaToday, daysBetween } from '../../src/policy/dates.js';
import type { NumberingRange } from '../../src/service/schemas/numbering.js';
import {
  buildCli,
  cli,
  closedPort,
  emulatorStats,
  workspace,
  type TestCompany,
} from '../fixtures/cli/harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const KEY = 'ranges-key-3001';
const COMPANY: TestCompany = { alias: 'main', id: 3001, nit: '900123456', apiKey: KEY, userId: 7 };

let emu: RunningEmulator;
let ws: { dir: string; config: string };
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  emu = (
    await resources.emulator({
      companies: [
        {
          id: 3001,
          nit: '900123456',
          checkDigit: '8',
          name: 'Rangos SAS',
          apiKey: KEY,
          userIds: [7],
          ranges: [
            {
              DocumentType: 'Invoice',
              Prefix: 'FE',
              ResolutionNumber: '18764000001',
              ResolutionDate: '2025-01-10',
              TechnicalKey: 'tk-fe',
              FromNumber: 1,
              ToNumber: 5000,
              ValidFrom: '2025-01-10T00:00:00',
              ValidTo: '2099-12-31T23:59:59',
            },
            {
              DocumentType: 'CreditNote',
              Prefix: 'NCX',
              ResolutionNumber: '18764000002',
              ResolutionDate: '2019-03-01',
              FromNumber: 1,
              ToNumber: 900,
              ValidFrom: '2019-03-01T00:00:00',
              ValidTo: '2020-03-01T23:59:59',
            },
            {
              DocumentType: 'DebitNote',
              Prefix: 'NDX',
              ResolutionNumber: '18764000003',
              FromNumber: 10,
              ToNumber: 90,
              ValidFrom: '2099-06-01T00:00:00',
              ValidTo: '2099-01-01T23:59:59',
            },
            {
              DocumentType: 'Pos',
              Prefix: 'OLD',
              ResolutionNumber: '18764000009',
              FromNumber: 1,
              ToNumber: 9,
              ValidFrom: '2025-01-01T00:00:00',
              ValidTo: '2099-01-01T23:59:59',
              Active: false,
            },
          ],
        },
      ],
    })
  ).running;
  ws = await workspace(resources, emu.url, [COMPANY]);
}, 240_000);

const run = (args: string[], config = ws.config) => cli([...args, '--config', config], ws.dir);

const CREATE = [
  'ranges',
  'create',
  '--type',
  'Invoice',
  '--prefix',
  'FV',
  '--authorization',
  '18764000100',
  '--from',
  '100',
  '--to',
  '200',
  '--valid-from',
  '2026-01-01',
  '--valid-to',
  '2027-12-31',
];

describe('edoc-bridge ranges list (E10)', () => {
  test('prints the active ranges of the company as a table and flags an expired range and one that ends before it starts', async () => {
    const { code, stdout, stderr } = await run(['ranges', 'list']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /PREFIX +FROM +TO +RESOLUTION +RESOLUTION DATE +VALID FROM +VALID TO +TYPE +LAST USED +NUMBERS LEFT +DAYS LEFT +CHECK/,
    );
    // no ledger yet: nothing used, every number left; days left to the last valid day, today in Colombia
    const days = daysBetween(colombiaToday(), '2099-12-31');
    expect(stdout).toMatch(
      new RegExp(
        `^FE +1 +5000 +18764000001 +2025-01-10 +2025-01-10 +2099-12-31 +\\S+ +- +5000 +${days} +ok$`,
        'm',
      ),
    );
    expect(stdout).toMatch(/^NCX .*2019-03-01 +2020-03-01 .*! expired$/m);
    expect(stdout).toMatch(/^NDX .* - +2099-06-01 +2099-01-01 .*! ends before it starts$/m);
    expect(stdout).not.toContain('OLD');
    expect(stdout.trim().split('\n').at(-1)).toBe(
      '3 ranges, 2 flagged (expired, or ending before they start)',
    );
    expect(stdout).toContain('NIT 900123456');
  });

  test('--json prints the ranges as the service sent them, each with its flags', async () => {
    const { code, stdout } = await run(['ranges', 'list', '--json']);
    expect(code).toBe(0);
    const ranges = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(ranges.map((r) => r.Prefix)).toEqual(['FE', 'NCX', 'NDX']);
    expect(ranges[0]).toMatchObject({
      FromNumber: '1',
      ToNumber: '5000',
      ResolutionNumber: '18764000001',
      TechnicalKey: 'tk-fe',
      flags: [],
      numbersLeft: 5000,
      daysLeft: daysBetween(colombiaToday(), '2099-12-31'),
    });
    expect(ranges[1].flags).toEqual(['expired']);
    expect(ranges[2].flags).toEqual(['ends before it starts']);
  });

  test('a key the service refuses (E10 403) ends with exit 3 and never prints the key', async () => {
    const wrong = await workspace(resources, emu.url, [{ ...COMPANY, apiKey: 'wrong-secret-key' }]);
    const { code, stdout, stderr } = await run(['ranges', 'list'], wrong.config);
    expect(code).toBe(3);
    expect(stderr).toMatch(
      /^edoc-bridge ranges: the service refused the credentials of company "main" \(id 3001\).*\[EDOC_SERVICE_UNAUTHORIZED\]$/m,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(`${stdout}${stderr}`).not.toContain('wrong-secret-key');
  });

  test('an unreachable service (a closed port) ends with exit 3 in one line', async () => {
    const port = await closedPort();
    const down = await workspace(resources, `http://127.0.0.1:${port}`, [COMPANY]);
    const { code, stderr } = await run(['ranges', 'list'], down.config);
    expect(code).toBe(3);
    expect(stderr).toMatch(
      new RegExp(
        `could not reach the service at http://127\\.0\\.0\\.1:${port} while listing the numbering ranges: .*ECONNREFUSED`,
      ),
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  test('a configuration with an unknown key ends with exit 2 naming the file and the key', async () => {
    const bad = path.join(ws.dir, 'bad.yaml');
    await writeFile(
      bad,
      `servce:\n  baseUrl: ${emu.url}\ncompanies:\n  - { alias: main, id: 3001, nit: "900123456", apiKey: ${KEY} }\n`,
    );
    const { code, stderr } = await run(['ranges', 'list'], bad);
    expect(code).toBe(2);
    expect(stderr).toContain('bad.yaml');
    expect(stderr).toContain('servce');
    expect(stderr).not.toContain(KEY);
  });

  test('an unknown --company and an option of create are usage errors (exit 2)', async () => {
    const unknown = await run(['ranges', 'list', '--company', 'mainn']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no company "mainn" in the configuration (did you mean "main"?); configured: main',
    );
    const misplaced = await run(['ranges', 'list', '--prefix', 'FE']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--prefix belongs to ranges create');
  });
});

describe('edoc-bridge ranges create (E11)', () => {
  test('registers a range, expanding yyyy-MM-dd to the whole days, and prints it', async () => {
    const { code, stdout } = await run([...CREATE, '--current', '150', '--name', 'Ventas 2026']);
    expect(code).toBe(0);
    expect(stdout).toContain('Range registered for company main (id 3001, NIT 900123456):');
    expect(stdout).toMatch(
      new RegExp(
        `^FV +100 +200 +18764000100 +- +2026-01-01 +2027-12-31 +\\S+ +- +101 +${daysBetween(colombiaToday(), '2027-12-31')} +ok$`,
        'm',
      ),
    );
    const stored = emu.state.company(3001)?.ranges.find((r) => r.Prefix === 'FV');
    expect(stored).toMatchObject({
      ResolutionNumber: '18764000100',
      FromNumber: 100,
      ToNumber: 200,
      Next: 150,
      ValidFrom: '2026-01-01T00:00:00',
      ValidTo: '2027-12-31T23:59:59',
    });
    const listed = await run(['ranges', 'list', '--json']);
    expect((JSON.parse(listed.stdout) as Array<{ Prefix: string }>).map((r) => r.Prefix)).toContain(
      'FV',
    );
    // the registered range reads as ranges list shows it: the TYPE is the authority's code in both, not the name sent
    const table = await run(['ranges', 'list']);
    const row = (text: string): string | undefined =>
      text
        .split('\n')
        .find((line) => line.startsWith('FV '))
        ?.replace(/ +/g, ' ');
    expect(row(stdout)).toBeDefined();
    expect(row(stdout)).toBe(row(table.stdout));
    expect(row(stdout)).not.toContain('Invoice');
  });

  test('a range with the same prefix and resolution is refused by the service: its message is printed, exit 1', async () => {
    const { code, stderr } = await run([
      'ranges',
      'create',
      '--type',
      'Invoice',
      '--prefix',
      'FE',
      '--authorization',
      '18764000001',
      '--from',
      '1',
      '--to',
      '10',
      '--valid-from',
      '2026-01-01T08:00:00',
      '--valid-to',
      '2026-06-30T18:00:00',
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('the service refused the range (HTTP 400, 1 message):');
    expect(stderr).toContain('  - Ya existe un rango con prefijo FE y resolución 18764000001.');
  });

  test("sends the configured NIT, so a NIT that is not the company's is refused with every message of Errors (exit 1)", async () => {
    const other = await workspace(resources, emu.url, [{ ...COMPANY, nit: '811999888' }]);
    const { code, stderr } = await run(
      [
        'ranges',
        'create',
        '--type',
        'Pos',
        '--prefix',
        'FE',
        '--authorization',
        '18764000001',
        '--from',
        '1',
        '--to',
        '10',
        '--valid-from',
        '2026-01-01',
        '--valid-to',
        '2026-12-31',
      ],
      other.config,
    );
    expect(code).toBe(1);
    expect(stderr).toContain('(HTTP 400, 2 messages):');
    expect(stderr).toContain('el nit 811999888 no corresponde a la empresa 3001');
    expect(stderr).toContain('Ya existe un rango con prefijo FE');
  });

  test('every local problem is printed at once, exit 2, and nothing reaches the service', async () => {
    const before = await emulatorStats(emu);
    const { code, stdout, stderr } = await run([
      'ranges',
      'create',
      '--type',
      'Invoise',
      '--authorization',
      '18764000200',
      '--from',
      '500',
      '--to',
      '20',
      '--valid-from',
      '2026-02-30',
      '--valid-to',
      '2026-01-01',
      '--current',
      'x1',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'edoc-bridge ranges create: 5 problems, nothing was sent (see edoc-bridge ranges --help):',
    );
    expect(lines.slice(1)).toEqual([
      '  - --prefix is required (the numbering prefix)',
      "  - --valid-from: '2026-02-30' is not a date as yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss",
      "  - --current: 'x1' is not a whole number",
      "  - --type: 'Invoise' is not one of Invoice, CreditNote, DebitNote, ContingencyInvoice, SupportDocument, Pos (did you mean Invoice?)",
      '  - --from 500 is greater than --to 20 (the first number must not be greater than the last)',
    ]);
    const order = await run([
      'ranges',
      'create',
      '--type',
      'Pos',
      '--prefix',
      'P',
      '--authorization',
      '1',
      '--from',
      '1',
      '--to',
      '2',
      '--valid-from',
      '2027-01-01',
      '--valid-to',
      '2026-12-31T10:00:00',
    ]);
    expect(order.code).toBe(2);
    expect(order.stderr).toContain(
      '--valid-from 2027-01-01T00:00:00 is later than --valid-to 2026-12-31T10:00:00',
    );
    const after = await emulatorStats(emu);
    expect(after.totalRequests).toBe(before.totalRequests);
    expect(after.requests.E11).toEqual(before.requests.E11);
  });

  test('a key the service refuses (E11 403) ends with exit 3', async () => {
    const wrong = await workspace(resources, emu.url, [
      { ...COMPANY, apiKey: 'another-wrong-key' },
    ]);
    const { code, stdout, stderr } = await run(
      [...CREATE.slice(0, 7), '18764000999', ...CREATE.slice(8)],
      wrong.config,
    );
    expect(code).toBe(3);
    expect(stderr).toContain('[EDOC_SERVICE_UNAUTHORIZED]');
    expect(`${stdout}${stderr}`).not.toContain('another-wrong-key');
    expect(emu.state.company(3001)?.ranges.some((r) => r.ResolutionNumber === '18764000999')).toBe(
      false,
    );
  });

  test('--help shows the options, date forms and examples, exit 0', async () => {
    const { code, stdout } = await run(['ranges', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('edoc-bridge ranges create --type TYPE');
    expect(stdout).toContain('--valid-from DATE');
    expect(stdout).toContain('yyyy-MM-dd');
    expect(stdout).toMatch(/Examples:\n {2}edoc-bridge ranges list/);
  });
});

describe('ranges create: the E11 request built from the options (in process)', () => {
  const base = {
    prefix: ' FE ',
    authorization: '18764000001',
    from: '1',
    to: '1',
    validFrom: '2026-03-01T08:30:00',
    validTo: '2026-03-01T08:30:00',
    type: 'creditnote',
  };

  test('a one-number range valid for one instant is allowed (StartValue = EndValue, ValidFrom = ValidTo) and the NIT is always sent', () => {
    const built = buildRangeRequest(base, '900123456');
    expect(built).toEqual({
      ok: true,
      request: {
        Prefix: 'FE',
        AuthorizationNumber: '18764000001',
        ValidFrom: '2026-03-01T08:30:00',
        ValidTo: '2026-03-01T08:30:00',
        StartValue: 1,
        EndValue: 1,
        DocumentType: 'CreditNote',
        Nit: '900123456',
      },
    });
  });

  test('--current becomes EfectiveValue and --name becomes Name; an empty name is left out', () => {
    const built = buildRangeRequest(
      { ...base, to: '500', current: '42', name: 'Notas 2026' },
      '900123456',
    );
    expect(built.ok && built.request).toMatchObject({
      EfectiveValue: 42,
      Name: 'Notas 2026',
      EndValue: 500,
    });
    const unnamed = buildRangeRequest({ ...base, name: '  ' }, '900123456');
    expect(unnamed.ok && 'Name' in unnamed.request).toBe(false);
  });

  test('a day alone stands for the whole day; anything else is not a date', () => {
    expect(expandDate('2026-02-28', 'start')).toBe('2026-02-28T00:00:00');
    expect(expandDate('2026-02-28', 'end')).toBe('2026-02-28T23:59:59');
    expect(expandDate('2026-02-28T12:00:00', 'end')).toBe('2026-02-28T12:00:00');
    for (const bad of [
      '2026-02-29',
      '28/02/2026',
      '2026-02-28 12:00:00',
      '2026-02-28T24:00:00',
      '',
    ])
      expect(expandDate(bad, 'start')).toBeUndefined();
  });

  test('every option missing gives one problem per required option', () => {
    const built = buildRangeRequest({}, '900123456');
    expect(built.ok).toBe(false);
    expect(built.ok ? [] : built.problems.map((p) => p.split(' ')[0])).toEqual([
      '--prefix',
      '--authorization',
      '--from',
      '--to',
      '--valid-from',
      '--valid-to',
      '--type',
    ]);
  });

  test('numbers beyond a safe integer are refused rather than rounded', () => {
    const built = buildRangeRequest({ ...base, to: '99999999999999999999' }, '900123456');
    expect(built.ok ? [] : built.problems).toEqual([
      "--to: '99999999999999999999' is not a whole number",
    ]);
  });
});

describe('ranges list: which ranges are flagged (in process)', () => {
  const range = (from: string, to: string): NumberingRange => ({
    FromNumber: '1',
    ToNumber: '2',
    Prefix: 'X',
    ResolutionNumber: '1',
    ResolutionDate: null,
    ResolutionType: '18',
    TechnicalKey: null,
    ValidDateFrom: from,
    ValidDateTo: to,
  });

  test('a range ending today is still valid; one that ended yesterday is expired', () => {
    expect(rangeFlags(range('2026-01-01', '2026-11-21'), '2026-11-21')).toEqual([]);
    expect(rangeFlags(range('2026-01-01', '2026-11-20'), '2026-11-21')).toEqual(['expired']);
  });

  test("a ValidDateTo before ValidDateFrom is flagged, with the create response's date-time form too", () => {
    expect(rangeFlags(range('2027-01-01', '2026-12-31'), '2026-11-21')).toEqual([
      'ends before it starts',
    ]);
    expect(rangeFlags(range('2026-01-01T00:00:00', '2025-01-01T23:59:59'), '2026-11-21')).toEqual([
      'ends before it starts',
      'expired',
    ]);
    expect(rangeFlags(range('2026-01-01T00:00:00', '2026-01-01T23:59:59'), '2026-01-01')).toEqual(
      [],
    );
  });
});

describe('ranges list with service.baseUrl: embedded', () => {
  test('starts the bundled emulator from the configured seed, says so on stderr, and lists its ranges', async () => {
    const seed = path.join(ws.dir, 'embedded-seed.json');
    await writeFile(
      seed,
      JSON.stringify({
        companies: [
          {
            id: 5005,
            nit: '800111222',
            checkDigit: '1',
            name: 'Embebida SAS',
            apiKey: 'embedded-key',
            ranges: [
              {
                DocumentType: 'SupportDocument',
                Prefix: 'DSE',
                ResolutionNumber: '55',
                FromNumber: 7,
                ToNumber: 70,
                ValidFrom: '2026-01-01T00:00:00',
                ValidTo: '2099-12-31T23:59:59',
              },
            ],
          },
        ],
      }),
    );
    const embedded = await workspace(
      resources,
      'embedded',
      [{ alias: 'emb', id: 5005, nit: '800111222', apiKey: 'embedded-key' }],
      `emulator: { seed: ${JSON.stringify(seed)} }`,
    );
    const { code, stdout, stderr } = await run(['ranges', 'list'], embedded.config);
    expect(code).toBe(0);
    expect(stderr).toContain(
      'note: service.baseUrl is "embedded": talking to the bundled emulator, not the tax authority\'s service',
    );
    expect(stdout).toMatch(/^DSE +7 +70 +55 /m);
    expect(stdout).toContain('1 range, none flagged');
  });
});
