/**
 * Issue 15, a new user's first hour: the small stumbles of the command line,
 * each run through the real CLI as a child process.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import iconv from 'iconv-lite';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { loadCommands } from '../../src/cli/commands/index.js';
import { runCli } from '../helpers/cli-runner.js';
import { invoice, jsonText } from '../helpers/documents.js';
import {
  buildCli,
  eventually,
  type Project,
  type ResultJson,
  ROOT,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** Projects whose invoices may also come as the sales CSV of the examples. */
const MAPPED = {
  kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
};

describe('a file that is not there', () => {
  test('validate and submit give the same answer for a missing file: "no such file", exit 2', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject(MAPPED);
    const missing = path.join(p.dir, 'ventas-que-no-existe.csv');
    const validate = await runCli(p, ['validate', missing, '--kind', 'invoice']);
    const submit = await runCli(p, ['submit', missing, '--kind', 'invoice']);
    expect(validate.code).toBe(2);
    expect(submit.code).toBe(2);
    expect(validate.stdout).toBe('');
    // the same line but for the command's name
    expect(validate.stderr.replaceAll('validate', 'submit')).toBe(submit.stderr);
    expect(validate.stderr).toContain(`${missing}: no such file`);
    expect(validate.stderr).not.toContain('EDOC_READ_CHANGED');
  });

  test('validate on a folder says it is a folder, like submit', async ({ daemonProject }) => {
    const { project: p } = await daemonProject(MAPPED);
    const folder = path.join(p.dir, 'carpeta.csv');
    await mkdir(folder);
    await writeFile(path.join(folder, 'x'), 'x');
    const validate = await runCli(p, ['validate', folder, '--kind', 'invoice']);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(`${folder} is a folder, not a file`);
  });
});

describe('submit says what is known about the service', () => {
  test('the connection dropped after the service processed the requests: not "could not be reached", but that they may have been issued', async ({
    daemonProject,
  }) => {
    const {
      emulator: dropping,
      project: p,
      startDaemon,
    } = await daemonProject({
      faults: { dropAfterCommitRate: 1 },
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const file = path.join(p.dir, 'caidas.json');
    await writeFile(file, jsonText([invoice(990_104_001), invoice(990_104_002)]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).not.toMatch(/could not be reached/);
    expect(run.stderr).toMatch(/the connection dropped after the requests went out/);
    expect(run.stderr).toMatch(/may have been issued/);
    expect(run.stderr).toContain('edoc-bridge retry --file caidas.json');
    // what the emulator holds: both documents were issued
    expect((await dropping.client.issued()).length).toBe(2);
    // what the advice leads to, said as it is: never "recorded accepted" on a processed-before answer alone
    expect(run.stderr).not.toMatch(/recorded accepted/);
    expect(run.stderr).toMatch(/held in doubt .* edoc-bridge resolve/);
    await dropping.client.setFaults({});
    const retry = await runCli(p, ['retry', '--file', 'caidas.json']);
    expect(retry.code, retry.stderr).toBe(0);
    const daemon = await startDaemon();
    const states = await eventually(() => {
      const s = p.ledgerStates();
      return s['in-doubt'] === 2 ? s : undefined;
    }, 'both re-queued documents answered Regla 90');
    expect(states.accepted).toBeUndefined();
    const doubts = p.ledgerQuery<{ doubt: string }>('SELECT doubt FROM documents');
    expect(doubts.map((d) => d.doubt)).toEqual(['repeated-number', 'repeated-number']);
    expect((await dropping.client.issued()).length).toBe(2);
    expect((await daemon.stop()).code).toBe(0);
  }, 60_000);
});

describe('the daemon after a submit', () => {
  test('a file submit handled is not logged "file complete" again at every daemon start', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject(MAPPED);
    const file = path.join(p.dir, 'a-mano.json');
    await writeFile(file, jsonText([invoice(990_104_101)]));
    const submitted = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(submitted.code, submitted.stderr).toBe(0);
    for (const [i, name] of ['primera.json', 'segunda.json'].entries()) {
      const daemon = await startDaemon();
      try {
        // a file of this run, complete: the start-up pass over earlier files (lower ids) has run by then
        await p.drop('invoice', name, jsonText([invoice(990_104_111 + i)]));
        await daemon.waitForLog((l) => l.msg === 'file complete' && l.file === name);
      } finally {
        await daemon.stop();
      }
    }
    const completes = p
      .logLines()
      .filter((l) => l.msg === 'file complete')
      .map((l) => l.file);
    // once each: a-mano.json by the submit that completed it (the shared pipeline's line), never again at a daemon start
    expect(completes).toEqual(['a-mano.json', 'primera.json', 'segunda.json']);
  }, 60_000);
});

describe('help', () => {
  test("every examples/ file a command's --help names exists", async () => {
    const named = (await loadCommands()).flatMap((c) =>
      c.examples.flatMap((e) => e.match(/examples\/[\w.-]+/g) ?? []),
    );
    expect(named).toContain('examples/invoices.csv');
    for (const file of named) expect(existsSync(path.join(ROOT, file)), file).toBe(true);
  });
});

describe('one problem, said once, in one form', () => {
  /** examples/invoices.csv with the first invoice dated 31/02/2026 and no due date: fecha is read as three dates. */
  async function badDateExport(p: Project): Promise<string> {
    const text = iconv
      .decode(await readFile(path.join(ROOT, 'examples/invoices.csv')), 'windows-1252')
      .split('\n')
      .map((line) =>
        line.includes(';990000101;')
          ? line.replace('18/11/2026;09:15:00;18/12/2026', '31/02/2026;09:15:00;')
          : line,
      )
      .join('\n');
    const file = path.join(p.dir, 'fechas.csv');
    await writeFile(file, iconv.encode(text, 'windows-1252'));
    return file;
  }

  test('a bad date read by three request fields is one problem in result.json and in validate', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject(MAPPED);
    const file = await badDateExport(p);
    const submitted = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(submitted.code, submitted.stderr).toBe(1);
    const result = JSON.parse(
      await readFile(p.resultPath('invoice', 'fechas.csv'), 'utf8'),
    ) as ResultJson;
    const first = result.documents.find((d) => d.index === 0);
    expect(first?.status).toBe('invalid');
    expect(first?.errors.filter((e) => e.code === 'EDOC_MAP_BAD_DATE')).toEqual([
      expect.objectContaining({
        field: 'fecha',
        message: expect.stringContaining('31/02/2026') as unknown,
      }),
    ]);
    const validated = await runCli(p, ['validate', file, '--kind', 'invoice']);
    const line = JSON.parse(validated.stdout.split('\n')[0]) as {
      key: unknown;
      source: { erpKey?: string };
      problems: unknown[];
    };
    expect(line.problems).toHaveLength(1);
    // the key as result.json has it: none of its own (no request), the export's key as source.erpKey
    expect(line.key).toBe(first?.key);
    expect(line.source.erpKey).toBe('SETP990000101');
  });

  test('validate names a document by the key result.json, status and retry use', async ({
    daemonProject,
  }) => {
    // an emulator of its own (every test has one): the examples' numbers were issued by the test before
    const { project: p } = await daemonProject(MAPPED);
    const validated = await runCli(p, [
      'validate',
      path.join(ROOT, 'examples/invoices.csv'),
      '--kind',
      'invoice',
    ]);
    expect(validated.code, validated.stdout.slice(0, 2000)).toBe(0);
    const keys = validated.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { key: string }).key);
    expect(keys).toEqual([
      'main/invoice/SETP/990000101',
      'main/invoice/SETP/990000102',
      'main/invoice/SETP/990000103',
    ]);
    const submitted = await runCli(p, [
      'submit',
      path.join(ROOT, 'examples/invoices.csv'),
      '--kind',
      'invoice',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const result = JSON.parse(
      await readFile(p.resultPath('invoice', 'invoices.csv'), 'utf8'),
    ) as ResultJson;
    expect(result.documents.map((d) => d.key)).toEqual(keys);
  });
});

describe('a file-level error of a file the daemon archived', () => {
  test('the missing-column message names the file, not the inbox path it no longer has', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject(MAPPED);
    const daemon = await startDaemon();
    try {
      await p.drop(
        'invoice',
        'cortas.csv',
        'prefijo;numero;fecha\r\nSETP;990000201;18/11/2026\r\n',
      );
      const result = await p.finalResult('invoice', 'cortas.csv');
      expect(result.error?.code).toBe('EDOC_MAP_MISSING_COLUMN');
      expect(result.error?.message).toMatch(/missing from the header of cortas\.csv \(/);
      expect(result.error?.message).not.toContain(p.inbox('invoice'));
      await expect
        .poll(() => existsSync(path.join(p.inbox('invoice'), 'cortas.csv')), { timeout: 10_000 })
        .toBe(false);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
