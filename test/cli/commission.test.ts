/** `edoc-bridge commission invoice|payroll|pos` as a real child process against the emulator (E8, E9, E7). */
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { buildCli, cli, closedPort, workspace, type TestCompany } from '../fixtures/cli/harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

type Setting = {
  invoice: 'enabled' | 'succeed' | 'fail' | 'error';
  payroll: 'enabled' | 'succeed' | 'fail' | 'error';
  pos: 'succeed' | 'fail' | 'partial' | 'error';
};

const SETTINGS: Record<string, { id: number; commissioning: Setting }> = {
  alpha: { id: 4001, commissioning: { invoice: 'succeed', payroll: 'fail', pos: 'partial' } },
  beta: { id: 4002, commissioning: { invoice: 'fail', payroll: 'succeed', pos: 'fail' } },
  gamma: { id: 4003, commissioning: { invoice: 'enabled', payroll: 'error', pos: 'succeed' } },
  delta: { id: 4004, commissioning: { invoice: 'error', payroll: 'succeed', pos: 'error' } },
};
const key = (id: number): string => `commission-key-${id}`;
const COMPANIES: TestCompany[] = Object.entries(SETTINGS).map(([alias, s]) => ({
  alias,
  id: s.id,
  nit: '900123456',
  apiKey: key(s.id),
  userId: 7,
}));

let emu: RunningEmulator;
let ws: { dir: string; config: string };
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  emu = (
    await resources.emulator({
      companies: Object.entries(SETTINGS).map(([alias, s]) => ({
        id: s.id,
        nit: '900123456',
        checkDigit: '8',
        name: `${alias} SAS`,
        apiKey: key(s.id),
        userIds: [7],
        commissioning: s.commissioning,
      })),
    })
  ).running;
  ws = await workspace(resources, emu.url, COMPANIES);
}, 240_000);

const run = (args: string[], config = ws.config) => cli([...args, '--config', config], ws.dir);

describe('edoc-bridge commission invoice (E8)', () => {
  test('a test set the authority accepts enables the company: verdict printed, exit 0', async () => {
    const { code, stdout, stderr } = await run([
      'commission',
      'invoice',
      '--company',
      'alpha',
      '--test-id',
      'set-77',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'ENABLED: company alpha (id 4001) is enabled for electronic invoicing.',
    );
    expect(stdout).toContain(
      'Service: Set de pruebas set-77 aceptado: la empresa 4001 quedó habilitada para facturación electrónica.',
    );
    expect(emu.state.company(4001)?.enabled.invoice).toBe(true);
  });

  test('a company already enabled answers enabled again, exit 0', async () => {
    const { code, stdout } = await run(['commission', 'invoice', '--company', 'gamma']);
    expect(code).toBe(0);
    expect(stdout).toContain('ya se encuentra habilitada para facturación electrónica');
  });

  test('a process that ends without enabling (ResultCode 304) prints the verdict and every error, exit 1', async () => {
    const { code, stdout } = await run([
      'commission',
      'invoice',
      '--company',
      'beta',
      '--test-id',
      'set-9',
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'NOT ENABLED: the invoice commissioning of company beta (id 4002) ended without enabling it (HTTP 200, ResultCode 304).',
    );
    expect(stdout).toContain('Service: Proceso terminado sin habilitar.');
    expect(stdout).toContain(
      '  - Regla: 304, Rechazo: El set de pruebas set-9 no fue aceptado por la autoridad.',
    );
  });

  test('an HTTP 500 processing error counts as the service failing: one line, exit 3', async () => {
    const { code, stdout, stderr } = await run(['commission', 'invoice', '--company', 'delta']);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^edoc-bridge commission: the service at http:\/\/127\.0\.0\.1:\d+ failed while running the invoice commissioning \(E8\) \(HTTP 500: Error procesando la habilitación\.\); try again later \[EDOC_SERVICE_UNREACHABLE\]$/m,
    );
  });

  test('a key that does not belong to the company (ResultCode 401) ends with exit 3 and never prints the key', async () => {
    const wrong = await workspace(resources, emu.url, [
      { ...COMPANIES[1], apiKey: 'not-the-right-key' },
    ]);
    const { code, stdout, stderr } = await run(['commission', 'invoice'], wrong.config);
    expect(code).toBe(3);
    expect(stderr).toContain('the service refused the credentials of company "beta" (id 4002)');
    expect(stderr).toContain('La llave de acceso no corresponde a la empresa 4002.');
    expect(`${stdout}${stderr}`).not.toContain('not-the-right-key');
  });
});

describe('edoc-bridge commission payroll (E9)', () => {
  test('an accepted payroll test set enables the company, exit 0', async () => {
    const { code, stdout } = await run(['commission', 'payroll', '--company', 'beta']);
    expect(code).toBe(0);
    expect(stdout).toContain('ENABLED: company beta (id 4002) is enabled for electronic payroll.');
    expect(emu.state.company(4002)?.enabled.payroll).toBe(true);
  });

  test('a payroll test set that ends without enabling, and a processing error in HTTP 200, both end with exit 1', async () => {
    const failed = await run(['commission', 'payroll', '--company', 'alpha']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      'NOT ENABLED: the payroll commissioning of company alpha (id 4001) ended without enabling it (HTTP 200, ResultCode 304).',
    );
    const errored = await run(['commission', 'payroll', '--company', 'gamma']);
    expect(errored.code).toBe(1);
    expect(errored.stdout).toContain('(HTTP 200, ResultCode 500)');
    expect(errored.stdout).toContain('Service: Error procesando la habilitación.');
  });
});

describe('edoc-bridge commission pos (E7)', () => {
  test('every test document accepted enables the company: counts and each detalle line, exit 0', async () => {
    const { code, stdout } = await run([
      'commission',
      'pos',
      '--company',
      'gamma',
      '--count',
      '3',
      '--test-id',
      'pos-1',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'ENABLED: company gamma (id 4003) is enabled for POS equivalent documents.',
    );
    expect(stdout).toContain('Test documents: 3 requested, 3 accepted, 0 rejected');
    expect(stdout.match(/^ {2}POS\d: ACEPTADO$/gm)).toHaveLength(3);
  });

  test('some accepted (partial) is not enabled: accepted/rejected counts and each detalle line, exit 1', async () => {
    const { code, stdout } = await run(['commission', 'pos', '--company', 'alpha', '--count', '4']);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'NOT ENABLED: the pos commissioning of company alpha (id 4001) ended without enabling it.',
    );
    expect(stdout).toContain('Test documents: 4 requested, 2 accepted, 2 rejected');
    expect(stdout).toMatch(/^ {2}POS1: ACEPTADO$/m);
    expect(stdout).toMatch(/^ {2}POS4: RECHAZADO .+$/m);
    expect(stdout.match(/^ {2}POS\d: /gm)).toHaveLength(4);
  });

  test("none accepted prints the service's message, exit 1; the default count is the service's (1)", async () => {
    const { code, stdout } = await run(['commission', 'pos', '--company', 'beta']);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'Service: Ningún documento de prueba fue aceptado; la empresa no quedó habilitada.',
    );
    expect(stdout).toContain('Test documents: 1 requested, 0 accepted, 1 rejected');
  });

  test('a processing error (HTTP 500) ends with exit 3', async () => {
    const { code, stderr } = await run(['commission', 'pos', '--company', 'delta']);
    expect(code).toBe(3);
    expect(stderr).toContain('[EDOC_SERVICE_UNREACHABLE]');
  });
});

describe('edoc-bridge commission: usage, configuration, reachability', () => {
  test('an unreachable service (a closed port) ends with exit 3 in one line', async () => {
    const port = await closedPort();
    const down = await workspace(resources, `http://127.0.0.1:${port}`, [COMPANIES[0]]);
    const { code, stderr } = await run(['commission', 'pos'], down.config);
    expect(code).toBe(3);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /could not reach the service at http:\/\/127\.0\.0\.1:\d+ while running the pos commissioning \(E7\)/,
    );
  });

  test('usage errors end with exit 2: --count outside pos, an unknown test set, several companies without --company', async () => {
    const count = await run(['commission', 'invoice', '--company', 'alpha', '--count', '2']);
    expect(count.code).toBe(2);
    expect(count.stderr).toContain('--count applies to commission pos only');
    const unknown = await run(['commission', 'nomina']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown test set "nomina": use invoice, payroll or pos');
    const which = await run(['commission', 'invoice']);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain(
      'several companies are configured; choose one with --company (alpha, beta, gamma, delta)',
    );
  });

  test('a missing configuration file ends with exit 2 naming it', async () => {
    const { code, stderr } = await run(
      ['commission', 'invoice'],
      path.join(ws.dir, 'nowhere.yaml'),
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /nowhere\.yaml: cannot read the configuration file .*\[EDOC_CONFIG_NOT_FOUND\]/,
    );
  });

  test('--help shows the test sets, the exit codes and examples, exit 0', async () => {
    const { code, stdout } = await run(['commission', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('edoc-bridge commission invoice|payroll|pos');
    expect(stdout).toContain('0 the company is enabled, 1 the process ended without enabling it');
    expect(stdout).toContain('edoc-bridge commission pos --count 5');
  });
});
