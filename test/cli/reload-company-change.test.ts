/**
 * A reload that gives a company another id or NIT while a file of it is being sent (the wrong entry
 * edited, two companies' entries swapped): the ledger knows the file's company by its alias, and every
 * request takes the alias's id and key as configured when it leaves, so such a reload would issue the
 * rest of the file under the other company. It is refused, naming the company and the open file; the
 * file ends under the company it began under, and the same change reloads once the file is final. A
 * company removed mid-file leaves its open files waiting: the reload says so in a warn line naming them.
 * Two companies of one NIT are said at start and after each reload (each one's numbers are kept apart).
 */
import { writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  type DaemonProcess,
  eventually,
  type TestCompany,
} from '../helpers/daemon-harness.js';
import {
  BUILD_TIMEOUT_MS,
  type DaemonProject,
  daemonTest as test,
} from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const slow = (c: TestCompany): TestCompany => ({
  ...c,
  rate: { requestsPerSecond: 2, concurrency: 1 },
});

/** `a` and `b` with their id, NIT and key swapped (two entries edited into each other). */
function swapped(a: TestCompany, b: TestCompany): TestCompany[] {
  return [
    { ...a, id: b.id, nit: b.nit, apiKey: b.apiKey, checkDigit: b.checkDigit },
    { ...b, id: a.id, nit: a.nit, apiKey: a.apiKey, checkDigit: a.checkDigit },
  ];
}

/** `name` ends with its 12 invoices accepted, every one issued under `a` and none under `b`. */
async function endsUnder(
  { project, emulator }: DaemonProject,
  a: TestCompany,
  b: TestCompany,
  name = 'mid.jsonl',
): Promise<void> {
  const result = await project.finalResult('invoice', name, {
    company: a.alias,
    timeoutMs: 40_000,
  });
  expect(result.counts).toMatchObject({ total: 12, accepted: 12 });
  expect(await emulator.client.issued({ company: a.id })).toHaveLength(12);
  expect(await emulator.client.issued({ company: b.id })).toHaveLength(0);
}

/** A daemon of `companies` sending `name` (12 invoices of `of` at 2/s): returned once 3 are issued. */
async function sendingFile(
  daemonProject: (options: { companies: TestCompany[] }) => Promise<DaemonProject>,
  companies: TestCompany[],
  of: TestCompany,
  name: string,
): Promise<DaemonProject & { daemon: DaemonProcess }> {
  const started = await daemonProject({ companies });
  const daemon = await started.startDaemon();
  const numbers = Array.from({ length: 12 }, (_, i) => 990_500_000 + i);
  await started.project.drop(
    'invoice',
    name,
    jsonlText(numbers.map((n) => invoice(n, of))),
    of.alias,
  );
  await eventually(
    async () =>
      (await started.emulator.client.issued({ company: of.id })).length >= 3 ? true : undefined,
    'the first invoices issued',
    20_000,
  );
  return { ...started, daemon };
}

/** Reloads `started`'s daemon with `a` and `b` swapped: the refusal line (it must be one), as text. */
async function reloadSwapped(
  { project, daemon }: DaemonProject & { daemon: DaemonProcess },
  a: TestCompany,
  b: TestCompany,
): Promise<string> {
  await writeFile(
    project.configFile,
    project.configText({ ...project.options, companies: swapped(a, b) }),
  );
  const refused = await daemon.reload();
  expect(refused.msg).toBe('new configuration refused; the old one stays in force');
  expect(refused.code).toBe('EDOC_CONFIG_INVALID');
  return JSON.stringify(refused);
}

describe('a reload that changes a company while a file of it is open', () => {
  test('two companies swapped mid-file: refused, every invoice of the file issued under its own company', async ({
    daemonProject,
  }) => {
    const [a, b] = [slow(COMPANY_MAIN), slow(COMPANY_OTHER)];
    const started = await sendingFile(daemonProject, [a, b], a, 'mid.jsonl');
    const { daemon } = started;
    expect(await reloadSwapped(started, a, b)).toContain(
      `companies[0].id: company ${a.alias} would change (id ${a.id} → ${b.id}, nit ${a.nit} → ${b.nit}) while 1 file(s) of it are open (mid.jsonl)`,
    );

    await endsUnder(started, a, b);

    // once the file is final, the same change reloads
    const reloaded = await daemon.reload();
    expect(reloaded.msg).toBe('configuration reloaded');
  }, 90_000);

  test('a company removed mid-file: the reload names the files it leaves open', async ({
    daemonProject,
  }) => {
    const [a, b] = [slow(COMPANY_MAIN), slow(COMPANY_OTHER)];
    const { project, daemon } = await sendingFile(daemonProject, [a, b], b, 'left.jsonl');
    await writeFile(project.configFile, project.configText({ ...project.options, companies: [a] }));
    const since = daemon.logLines().length;
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    const warned = daemon
      .logLines()
      .slice(since)
      // not an alert's line: within 30 minutes of midnight in Colombia the day-end alert warns of the
      // company's unsent documents too
      .filter((l) => l.level === 'warn' && l.company === b.alias && l.alert === undefined);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ files: ['left.jsonl'] });
    expect(warned[0].msg).toContain(
      `company ${b.alias} is no longer configured: its 1 open file(s) wait`,
    );
  }, 60_000);

  test("a company removed mid-file and added back with another company's entry: refused", async ({
    daemonProject,
  }) => {
    const [a, b] = [slow(COMPANY_MAIN), slow(COMPANY_OTHER)];
    const started = await sendingFile(daemonProject, [a, b], b, 'back.jsonl');
    const { project, daemon } = started;
    await writeFile(project.configFile, project.configText({ ...project.options, companies: [a] }));
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    // b comes back with a's id, NIT and key (the two entries swapped while b was out): the change that
    // one reload may not make is not made in two
    expect(await reloadSwapped(started, a, b)).toContain(
      `companies[1].id: company ${b.alias} would change (id ${b.id} → ${a.id}, nit ${b.nit} → ${a.nit}) while 1 file(s) of it are open (back.jsonl)`,
    );

    // b back as it was: the file ends under its own company
    await writeFile(project.configFile, project.configText(project.options));
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    await endsUnder(started, b, a, 'back.jsonl');
  }, 90_000);
});

describe('two companies with one NIT', () => {
  test('said at start and after each reload that keeps them; not once they have NITs of their own', async ({
    daemonProject,
  }) => {
    const a = COMPANY_MAIN;
    const b = { ...COMPANY_OTHER, nit: a.nit, checkDigit: a.checkDigit };
    const { project, startDaemon } = await daemonProject({ companies: [a, b] });
    const daemon = await startDaemon();
    const shared = (from: number): Record<string, unknown>[] =>
      daemon
        .logLines()
        .slice(from)
        .filter((l) => l.level === 'warn' && l.nit !== undefined);
    const said = shared(0);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ nit: a.nit, companies: [a.alias, b.alias] });
    expect(said[0]!.msg).toBe(
      `companies ${a.alias}, ${b.alias} have the same NIT ${a.nit}: each one's numbers are kept apart, so a ` +
        'prefix and number sent by more than one of them is issued once under each; give them prefixes of ' +
        'their own, or one company per NIT',
    );

    let since = daemon.logLines().length;
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    expect(shared(since)).toHaveLength(1);

    await writeFile(
      project.configFile,
      project.configText({ ...project.options, companies: [a, COMPANY_OTHER] }),
    );
    since = daemon.logLines().length;
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    expect(shared(since)).toHaveLength(0);
  }, 60_000);
});

/**
 * A daemon of `a` and `b` stopped while a file of `a` is sent, started again with `companies`: it exits 2
 * naming `refusal` and sends nothing; started again with the configuration the file was taken under, the
 * file ends under `a`.
 */
async function refusedAtStart(
  daemonProject: (options: { companies: TestCompany[] }) => Promise<DaemonProject>,
  companies: (a: TestCompany, b: TestCompany) => TestCompany[],
  refusal: (a: TestCompany, b: TestCompany) => string,
): Promise<void> {
  const [a, b] = [slow(COMPANY_MAIN), slow(COMPANY_OTHER)];
  const started = await sendingFile(daemonProject, [a, b], a, 'mid.jsonl');
  const { emulator, project, daemon } = started;
  expect((await daemon.stop()).code).toBe(0);
  const issuedBefore = (await emulator.client.issued({ company: a.id })).length;
  expect(issuedBefore).toBeLessThan(12);
  const original = project.configText(project.options);
  await writeFile(
    project.configFile,
    project.configText({ ...project.options, companies: companies(a, b) }),
  );
  const refused = started.spawnDaemon();
  // a start that is not refused watches the inbox (and sends): the test ends then rather than at its timeout
  const watching = refused
    .waitForLog((l) => l.msg === 'watching the inbox', 30_000)
    .then(() => ({ code: 'started' }))
    .catch(() => ({ code: 'neither' }));
  const exit = await Promise.race([refused.exited, watching]);
  expect(exit.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain('EDOC_CONFIG_INVALID');
  expect(refused.stderr).toContain(refusal(a, b));
  // nothing was sent under the changed configuration
  expect(await emulator.client.issued({ company: b.id })).toHaveLength(0);
  expect(await emulator.client.issued({ company: a.id })).toHaveLength(issuedBefore);

  // started again with the configuration the file was taken under, it ends under its own company
  await writeFile(project.configFile, original);
  await started.startDaemon();
  await endsUnder(started, a, b);
}

describe('a start whose configuration changed a company while a file of it is open', () => {
  test('two companies swapped between a stop and the next start: refused, and the file ends under its own company', async ({
    daemonProject,
  }) => {
    await refusedAtStart(
      daemonProject,
      swapped,
      (a, b) =>
        `companies[0].nit: company ${a.alias} has 1 open file(s) taken under NIT ${a.nit} (mid.jsonl), and this configuration gives it NIT ${b.nit}`,
    );
  }, 90_000);

  test("a company's id alone changed between a stop and the next start (its NIT kept): refused, naming both ids", async ({
    daemonProject,
  }) => {
    // a's entry given b's id and key, its NIT kept: the requests would name a's NIT under company b
    await refusedAtStart(
      daemonProject,
      (a, b) => [
        { ...a, id: b.id, apiKey: b.apiKey },
        { ...b, id: 1_099 },
      ],
      (a, b) =>
        `companies[0].id: company ${a.alias} has 1 open file(s) taken under company id ${a.id} (mid.jsonl), and this configuration gives it id ${b.id}`,
    );
  }, 90_000);
});
