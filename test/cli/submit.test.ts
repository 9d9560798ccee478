/**
 * PRODUCT "Command line": `edoc-bridge submit FILE --kind KIND` runs the
 * daemon's pipeline for one file in the foreground, as a child process against
 * an emulator on port 0; the exit code is the outcome (0 all accepted, 1 some
 * not, 2 usage or configuration, 3 service unreachable or unauthorized).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { closedPort } from '../fixtures/cli/harness.js';
import { runCli, runShell, spawnCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  type Project,
  type ResultJson,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText, supportDocument } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function readResult(p: Project, name: string): Promise<ResultJson> {
  return JSON.parse(await readFile(p.resultPath('invoice', name), 'utf8')) as ResultJson;
}

function numbers(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

async function issuedCount(emulator: TestEmulator, documentNumber: string): Promise<number> {
  return (await emulator.client.documents()).filter((d) => d.documentNumber === documentNumber)
    .length;
}

describe('submit FILE --kind invoice', () => {
  test('a daemon started later on the same state folder leaves a submitted original where the operator keeps it', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject();
    const file = await p.exportFile('kept.json', jsonText([invoice(990_109_901)]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(0);
    const daemon = await startDaemon();
    await daemon.stop();
    expect(existsSync(file)).toBe(true);
    expect(existsSync(path.join(p.outbox('invoice'), 'archive', 'kept.json'))).toBe(false);
  });

  test('a JSON file of 5 invoices: exit 0, one summary line, result.json in outbox/invoice, the original left in place, each issued once', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    const nums = numbers(990_100_001, 5);
    const file = await p.exportFile('ventas.json', jsonText(nums.map((n) => invoice(n))));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(0);
    const summary = run.stdout.trim().split('\n');
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatch(
      /^ventas\.json: 5 document\(s\): 5 accepted, 0 rejected, 0 invalid, 0 failed, 0 duplicate, 0 in doubt/,
    );
    expect(summary[0]).toContain(p.resultPath('invoice', 'ventas.json'));
    const result = await readResult(p, 'ventas.json');
    expect(result.counts).toMatchObject({ total: 5, accepted: 5 });
    expect(result.finishedAt).not.toBeNull();
    expect(result.documents.map((d) => d.key)).toEqual(nums.map((n) => `main/invoice/SETP/${n}`));
    expect(existsSync(file)).toBe(true);
    expect(existsSync(path.join(p.outbox('invoice'), 'archive', 'ventas.json'))).toBe(false);
    for (const n of nums) expect(await issuedCount(emulator, `SETP${n}`)).toBe(1);

    // The same file again: nothing is sent, and the first result.json still tells what happened.
    const before = (await emulator.client.stats()).totalRequests;
    const again = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /ventas\.json: this file was submitted before and every document in it is final; nothing was sent again/,
    );
    expect(again.stdout).toMatch(/5 accepted/);
    expect((await emulator.client.stats()).totalRequests).toBe(before);
    for (const n of nums) expect(await issuedCount(emulator, `SETP${n}`)).toBe(1);
    expect((await readResult(p, 'ventas.json')).counts).toMatchObject({ total: 5, accepted: 5 });

    // The same content under another name: reported as duplicate content (exit 1: nothing of it was accepted now).
    const copy = await p.exportFile('ventas-copia.json', await readFile(file, 'utf8'));
    const dup = await runCli(p, ['submit', copy, '--kind', 'invoice']);
    expect(dup.code, dup.stderr).toBe(1);
    expect(dup.stdout).toMatch(
      /^ventas-copia\.json: The same content was received before as ventas\.json.*\[EDOC_LEDGER_DUPLICATE_FILE\]/,
    );
    expect((await emulator.client.stats()).totalRequests).toBe(before);
    expect((await readResult(p, 'ventas.json')).counts).toMatchObject({ total: 5, accepted: 5 });
  });

  test('a file with one invalid document: exit 1, the others accepted, errors.csv names the field; the invalid one never reaches the service', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    const bad = invoice(990_100_102);
    bad.ReasonCredit = 'no debería estar aquí';
    const file = await p.exportFile(
      'mixta.json',
      jsonText([invoice(990_100_101), bad, invoice(990_100_103)]),
    );
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/3 document\(s\): 2 accepted, 0 rejected, 1 invalid/);
    const errorsCsv = path.join(p.outbox('invoice'), 'mixta.errors.csv');
    expect(run.stdout).toContain(`problems: ${errorsCsv}`);
    const csv = await readFile(errorsCsv, 'utf8');
    expect(csv).toContain('main/invoice/SETP/990100102');
    expect(csv).toContain('ReasonCredit');
    expect(await issuedCount(emulator, 'SETP990100102')).toBe(0);
    expect(await issuedCount(emulator, 'SETP990100101')).toBe(1);
  });

  test('a wrong API key: exit 3 at once (the company is paused, not retried), nothing issued, the key never printed', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject({
      apiKeys: { main: 'wrong-key-4711' },
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 5_000 },
    });
    const file = await p.exportFile(
      'clave.json',
      jsonText([invoice(990_100_201), invoice(990_100_202)]),
    );
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.ms).toBeLessThan(5_000);
    expect(run.stderr).toMatch(/refused the credentials of company main/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('wrong-key-4711');
    expect(await issuedCount(emulator, 'SETP990100201')).toBe(0);
  });

  test('an unreachable service (closed port, 2 attempts): exit 3 saying it could not be reached', async ({
    daemonProject,
  }) => {
    const port = await closedPort();
    const { project: p } = await daemonProject({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
    });
    const file = await p.exportFile(
      'caida.json',
      jsonText([invoice(990_100_301), invoice(990_100_302)]),
    );
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/could not be reached/);
    expect(run.stdout).toMatch(/2 document\(s\): 0 accepted/);
    expect(run.ms).toBeLessThan(10_000);
  });

  test('a configuration that does not validate: exit 2 naming the key, nothing sent', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject();
    await writeFile(
      p.configFile,
      (await readFile(p.configFile, 'utf8')).replace('timeoutMs:', 'timeoutMillis:'),
    );
    const file = await p.exportFile('config.json', jsonText([invoice(990_100_401)]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^edoc-bridge submit: .*timeoutMillis.*\[EDOC_CONFIG_/);
    expect(await issuedCount(emulator, 'SETP990100401')).toBe(0);
  });

  test('a daemon holding the state folder: exit 2 naming the lock and its pid, nothing sent', async ({
    daemonProject,
  }) => {
    const { emulator, project: p, startDaemon } = await daemonProject();
    const daemon = await startDaemon();
    const file = await p.exportFile('ocupado.json', jsonText([invoice(990_100_501)]));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`pid ${daemon.child.pid}`);
    expect(run.stderr).toContain('edoc-bridge.lock');
    expect(run.stderr).toContain('[EDOC_LEDGER_LOCKED]');
    expect(await issuedCount(emulator, 'SETP990100501')).toBe(0);
  });

  test('--dry-run prints the requests and sends nothing', async ({ daemonProject }) => {
    const { emulator, project: p } = await daemonProject();
    const file = await p.exportFile(
      'prueba.json',
      jsonText([invoice(990_100_601), invoice(990_100_602)]),
    );
    const before = (await emulator.client.stats()).totalRequests;
    const run = await runCli(p, ['submit', file, '--kind', 'invoice', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('"SerieNumber":"990100601"');
    expect(run.stdout).toContain('"SerieNumber":"990100602"');
    expect((await emulator.client.stats()).totalRequests).toBe(before);
    expect(existsSync(p.resultPath('invoice', 'prueba.json'))).toBe(false);
  });

  test('--kind that is not a document kind: exit 2 with the kinds to choose from', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const file = await p.exportFile('tipo.json', jsonText([invoice(990_100_701)]));
    const run = await runCli(p, ['submit', file, '--kind', 'factura']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--kind factura is not a document kind/);
  });
  test('a FILE that does not exist or is a folder: exit 2 in one line, before anything is opened', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const missing = await runCli(p, ['submit', 'exports/no-existe.json', '--kind', 'invoice']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(
      /^edoc-bridge submit: .*no-existe\.json: no such file \(see edoc-bridge submit --help\)$/,
    );
    await mkdir(path.join(p.dir, 'exports'), { recursive: true });
    const folder = await runCli(p, ['submit', 'exports', '--kind', 'invoice']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/exports is a folder, not a file/);
    expect(existsSync(p.stateDir)).toBe(false);
  });
  test('a FILE that is a FIFO: exit 2 in one line, not a submit waiting for a writer', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    await mkdir(path.join(p.dir, 'exports'), { recursive: true });
    const fifo = path.join(p.dir, 'exports', 'tuberia.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const run = await runCli(p, ['submit', fifo, '--kind', 'invoice'], { timeoutMs: 20_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/tuberia\.json is not a regular file/);
    expect(existsSync(p.stateDir)).toBe(false);
  });
});

describe('submit beside other commands', () => {
  test('SIGHUP does not kill a submit in progress; status names it as the lock holder, not a daemon', async ({
    daemonProject,
  }) => {
    // 8 invoices at 2 per second: about 4 s of work to signal and look at.
    const { project: p } = await daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 2, concurrency: 1 } }],
    });
    const file = await p.exportFile(
      'lento.json',
      jsonText(numbers(990_100_901, 8).map((n) => invoice(n))),
    );
    const running = runCli(p, ['submit', file, '--kind', 'invoice']);
    const lock = path.join(p.stateDir, 'edoc-bridge.lock');
    const pid = await eventually(
      async () => {
        try {
          return (JSON.parse(await readFile(lock, 'utf8')) as { pid: number }).pid;
        } catch {
          return undefined;
        }
      },
      'the submit to take the lock',
      10_000,
    );
    process.kill(pid, 'SIGHUP');
    const status = await runCli(p, ['status', '--json']);
    expect((JSON.parse(status.stdout) as { daemon: unknown }).daemon).toMatchObject({
      running: false,
      pid,
      heldBy: 'submit',
    });
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/8 document\(s\): 8 accepted/);
  });
});

describe('an interrupted submit', () => {
  test('SIGINT: exit 1, the rest stays pending; the same command again finishes it and nothing is issued twice', async ({
    daemonProject,
  }) => {
    const { emulator, project: p } = await daemonProject({
      companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 2, concurrency: 1 } }],
    });
    const nums = numbers(990_101_001, 6);
    const file = await p.exportFile('cortado.json', jsonText(nums.map((n) => invoice(n))));
    const child = spawnCli(p, ['submit', file, '--kind', 'invoice']);
    await eventually(
      async () =>
        (await emulator.client.issued()).some((d) => d.documentNumber === `SETP${nums[0]}`)
          ? true
          : undefined,
      'the first invoice issued',
      10_000,
    );
    child.process.kill('SIGINT');
    const first = await child.done;
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(
      /interrupted: the documents not sent yet stay pending; submit cortado\.json again/,
    );
    const issuedBefore = (await emulator.client.issued()).filter((d) =>
      nums.includes(Number(d.number)),
    ).length;
    expect(issuedBefore).toBeLessThan(6);

    const again = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/continuing from the ledger/);
    for (const n of nums) expect(await issuedCount(emulator, `SETP${n}`)).toBe(1);
  });
});

describe('a submit killed while its requests were out', () => {
  const SLOW = {
    faults: { latencyMs: 2500 },
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 50, concurrency: 2 } }],
  };

  async function killWhileSending(
    slow: TestEmulator,
    p: Project,
    file: string,
    kind: string,
  ): Promise<void> {
    const child = spawnCli(p, ['submit', file, '--kind', kind]);
    await eventually(
      async () => ((await slow.client.submissionsInFlight()) >= 2 ? true : undefined),
      'two submissions in flight',
      15_000,
    );
    child.process.kill('SIGKILL');
    await child.done;
  }

  test('SIGKILL: the same command again resends the numbered invoices left sending and finishes; each is issued once, those cut off in doubt for their repeated number', async ({
    daemonProject,
  }) => {
    const { emulator: slow, project: p } = await daemonProject(SLOW);
    const nums = numbers(990_102_001, 4);
    const file = await p.exportFile('matado.json', jsonText(nums.map((n) => invoice(n))));
    await killWhileSending(slow, p, file, 'invoice');
    const again = await runCli(p, ['submit', file, '--kind', 'invoice']);
    // Requests the kill cut off reached the service: their resend meets Regla 90 → in doubt, exit 1 (issue 12 item 1)
    const inDoubt = (
      JSON.parse(await readFile(p.resultPath('invoice', 'matado.json'), 'utf8')) as ResultJson
    ).documents.filter((d) => d.status !== 'accepted');
    for (const d of inDoubt)
      expect(d).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect([again.code, inDoubt.length > 0], again.stderr).toEqual([1, true]);
    expect(again.stdout).toContain(
      `4 document(s): ${4 - inDoubt.length} accepted, 0 rejected, 0 invalid, 0 failed, 0 duplicate, ${inDoubt.length} in doubt`,
    );
    const issued = (await slow.client.documents({ withRequest: true })).filter(
      (d) => d.accepted && nums.includes(Number(d.number)),
    );
    expect(issued.map((d) => Number(d.number)).sort()).toEqual(nums); // each held once, with our content
    for (const d of issued)
      expect((d.request as { CorrelationDocumentId: string }).CorrelationDocumentId).toBe(
        `ERP-SETP-${d.number}`,
      );
    expect(await readFile(p.logFile, 'utf8')).toMatch(
      /"resent":[1-4],"inDoubt":0[^\n]*were being sent when the last run stopped/,
    );
  });

  test('SIGKILL: support documents without their own number left sending are reported in doubt, not resent and not waited for', async ({
    daemonProject,
  }) => {
    const { emulator: slow, project: p } = await daemonProject(SLOW);
    const markers = ['kill-a', 'kill-b'];
    const file = await p.exportFile(
      'soporte.json',
      jsonText(markers.map((m) => supportDocument(undefined, m))),
    );
    await killWhileSending(slow, p, file, 'support-document');

    const again = await runCli(p, ['submit', file, '--kind', 'support-document']);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toMatch(
      /2 document\(s\) left sending by a run that stopped have no own number: they are in doubt, not resent/,
    );
    const result = JSON.parse(
      await readFile(p.resultPath('support-document', 'soporte.json'), 'utf8'),
    ) as ResultJson;
    expect(result.counts).toMatchObject({ total: 2, inDoubt: 2, accepted: 0 });
    // the emulator took the first run's two requests (it answers them after its latency, to nobody) and no more:
    // the second run, which has exited, sent nothing
    const e5 = async (): Promise<number> =>
      Object.values((await slow.client.stats()).requests.E5 ?? {}).reduce((a, b) => a + b, 0);
    await eventually(
      async () => ((await e5()) >= 2 ? true : undefined),
      "the first run's two requests answered",
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await e5()).toBe(2);
    const finals = (await readFile(p.logFile, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"msg":"document final"'));
    expect(finals).toHaveLength(2);
    for (const line of finals)
      expect(JSON.parse(line)).toMatchObject({
        kind: 'support-document',
        status: 'in-doubt',
        company: 'main',
      });
  });
});

describe('the command line frame', () => {
  test('on a terminal a progress bar is drawn in place on stderr and ends with the file complete', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const nums = numbers(990_103_001, 5);
    const file = await p.exportFile('tty.json', jsonText(nums.map((n) => invoice(n))));
    // `script` gives the command a pseudo-terminal; what it wrote comes back on stdout, both streams merged
    const run = await runShell(
      p,
      `script -qec '"$NODE" "$BIN" submit ${file} --kind invoice --config ${p.configFile}' /dev/null`,
    );
    expect(run.code, run.stdout).toBe(0);
    // each frame is drawn after an erase-line (ESC[2K)
    const frames = run.stdout
      .split('\u001b[2K')
      .join('')
      .split('\r')
      .map((f) => f.trim())
      .filter((f) => f.startsWith('['));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames)
      expect(f).toMatch(/^\[[#-]{30}\] \d\/5 {2}accepted \d {2}not accepted 0/);
    expect(frames.at(-1)).toMatch(/^\[#{30}\] 5\/5 {2}accepted 5 {2}not accepted 0/);
    expect(run.stdout).toMatch(/tty\.json: 5 document\(s\): 5 accepted/);
  });

  test('validate piped into head -1 exits quietly when the reader goes away (no EPIPE crash)', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const many = numbers(990_100_801, 400).map((n) => invoice(n));
    await p.exportFile('grande.json', jsonText(many));
    const run = await runShell(
      p,
      `"$NODE" "$BIN" validate exports/grande.json --kind invoice --config edoc-bridge.yaml | head -1; ` +
        'echo "exit=${PIPESTATUS[0]}"',
    );
    expect(run.stdout.split('\n')[0]).toContain('"SerieNumber":"990100801"');
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('exit=0');
  });

  test('an option value that starts with a dash gives one readable line, exit 2', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const run = await runCli(p, ['received', 'pull', '--from', '-5']);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^edoc-bridge received: option --from needs a value.*--from=-5/);
    const short = await runCli(p, ['submit', 'f.json', '-k', '-x']);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(
      'edoc-bridge submit: option --kind needs a value, and "-x" looks like an option; ' +
        'if it is the value, write --kind=-x (see edoc-bridge submit --help)\n',
    );
  });
});
