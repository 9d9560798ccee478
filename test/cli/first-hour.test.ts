/**
 * Issue 15, a new user's first hour: the small stumbles of the command line,
 * each run through the real CLI as a child process.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { runCli } from '../helpers/cli-runner.js';
import { invoice, jsonText } from '../helpers/documents.js';
import {
  buildCli, COMPANY_MAIN, createProject, DaemonProcess, type Project, ROOT, startTestEmulator, type TestEmulator,
} from '../helpers/daemon-harness.js';

let emulator: TestEmulator;
const projects: Project[] = [];

beforeAll(async () => {
  await buildCli();
  emulator = await startTestEmulator([COMPANY_MAIN]);
}, 240_000);

afterAll(async () => {
  await emulator?.close();
  for (const p of projects) await p.remove();
});

async function project(): Promise<Project> {
  const p = await createProject({ baseUrl: emulator.url, companies: [COMPANY_MAIN],
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } } });
  projects.push(p);
  return p;
}

describe('a file that is not there', () => {
  test('validate and submit give the same answer for a missing file: "no such file", exit 2', async () => {
    const p = await project();
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

  test('validate on a folder says it is a folder, like submit', async () => {
    const p = await project();
    const folder = path.join(p.dir, 'carpeta.csv');
    await mkdir(folder);
    await writeFile(path.join(folder, 'x'), 'x');
    const validate = await runCli(p, ['validate', folder, '--kind', 'invoice']);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(`${folder} is a folder, not a file`);
  });
});

describe('submit says what is known about the service', () => {
  test('the connection dropped after the service processed the requests: not "could not be reached", but that they may have been issued', async () => {
    const dropping = await startTestEmulator([COMPANY_MAIN], { dropAfterCommitRate: 1 });
    try {
      const p = await createProject({ baseUrl: dropping.url, companies: [COMPANY_MAIN], retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } });
      projects.push(p);
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
    } finally {
      await dropping.close();
    }
  });
});

describe('the daemon after a submit', () => {
  test('a file submit handled is not logged "file complete" again at every daemon start', async () => {
    const p = await project();
    const file = path.join(p.dir, 'a-mano.json');
    await writeFile(file, jsonText([invoice(990_104_101)]));
    const submitted = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(submitted.code, submitted.stderr).toBe(0);
    for (const [i, name] of ['primera.json', 'segunda.json'].entries()) {
      const daemon = await DaemonProcess.start(p);
      try {
        // a file of this run, complete: the start-up pass over earlier files (lower ids) has run by then
        await p.drop('invoice', name, jsonText([invoice(990_104_111 + i)]));
        await daemon.waitForLog((l) => l.msg === 'file complete' && l.file === name);
      } finally {
        await daemon.stop();
      }
    }
    const completes = p.logLines().filter((l) => l.msg === 'file complete').map((l) => l.file);
    expect(completes).toEqual(['primera.json', 'segunda.json']);
  }, 60_000);
});

describe('help', () => {
  test('every examples/ file a command\'s --help names exists', () => {
    const named = COMMANDS.flatMap((c) => c.examples.flatMap((e) => e.match(/examples\/[\w.-]+/g) ?? []));
    expect(named).toContain('examples/invoices.csv');
    for (const file of named) expect(existsSync(path.join(ROOT, file)), file).toBe(true);
  });
});
