import { chmod, mkdir, mkdtemp, readFile, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { EdocError } from '../../src/errors.js';
import { createLogger, formatConsoleLine } from '../../src/log/index.js';

const KEY = 'k3y-VALUE-0f9e8d7c6b5a';

async function logFile(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-log-'));
  return path.join(dir, 'nested', 'folder', 'edoc-bridge.log');
}

async function readLines(file: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(file, 'utf8');
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('createLogger', () => {
  test('writes NDJSON to the file (its folder created) with stable keys', async () => {
    const file = await logFile();
    const logger = createLogger({ file, level: 'info' });
    logger
      .child({ company: 'main', kind: 'invoice', file: 'ventas.csv' })
      .info({ doc: 'SETP990000001', code: 'EDOC_X' }, 'document accepted');
    logger.debug('below the level');
    await logger.close();
    const lines = await readLines(file);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'document accepted',
      company: 'main',
      kind: 'invoice',
      file: 'ventas.csv',
      doc: 'SETP990000001',
      code: 'EDOC_X',
      pid: process.pid,
    });
    expect(typeof lines[0].time).toBe('string');
    expect(Number.isNaN(Date.parse(lines[0].time as string))).toBe(false);
  });

  test('x-api-key, apiKey, api_key and secret-like keys are redacted at every depth; the key value appears nowhere', async () => {
    const file = await logFile();
    const logger = createLogger({ file });
    logger.info(
      {
        apiKey: KEY,
        request: {
          headers: { 'x-api-key': KEY, 'x-company-id': '1001', Authorization: `Bearer ${KEY}` },
        },
        deep: {
          a: {
            b: {
              c: {
                d: [
                  {
                    api_key: KEY,
                    clientSecret: KEY,
                    refreshToken: KEY,
                    password: KEY,
                    keep: 'visible',
                  },
                ],
              },
            },
          },
        },
        apiKeyFile: '/etc/edoc-bridge/main.key',
      },
      'request sent',
    );
    logger
      .child({ company: 'main', credentials: { apikey: KEY } })
      .warn('child bindings are redacted too');
    logger
      .child({ company: 'main' })
      .child({ kind: 'invoice', session: { token: KEY } })
      .warn('and grandchild bindings');
    await logger.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    const [first, second, third] = await readLines(file);
    expect(first.apiKey).toBe('[redacted]');
    expect(third).toMatchObject({
      company: 'main',
      kind: 'invoice',
      session: { token: '[redacted]' },
    });
    expect(first.request).toEqual({
      headers: { 'x-api-key': '[redacted]', 'x-company-id': '1001', Authorization: '[redacted]' },
    });
    expect(first.deep).toEqual({
      a: {
        b: {
          c: {
            d: [
              {
                api_key: '[redacted]',
                clientSecret: '[redacted]',
                refreshToken: '[redacted]',
                password: '[redacted]',
                keep: 'visible',
              },
            ],
          },
        },
      },
    });
    expect(first.apiKeyFile).toBe('/etc/edoc-bridge/main.key');
    expect(second).toMatchObject({ company: 'main', credentials: { apikey: '[redacted]' } });
  });

  test('a registered secret is scrubbed from messages and error texts, wherever it appears', async () => {
    const file = await logFile();
    const logger = createLogger({ file, secrets: ['first-known-key-1'] });
    logger.registerSecret(KEY);
    logger.info(`the service said: key ${KEY} is not valid`);
    logger.error(
      { err: new Error(`401 for ${KEY}`), note: `first-known-key-1 and ${KEY}` },
      'unauthorized',
    );
    await logger.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('first-known-key-1');
    const [first, second] = await readLines(file);
    expect(first.msg).toBe('the service said: key [redacted] is not valid');
    expect(second).toMatchObject({
      note: '[redacted] and [redacted]',
      err: { message: '401 for [redacted]' },
    });
  });

  test('an EdocError logs as err with type, message, stack and context; its code is lifted to code', async () => {
    const file = await logFile();
    const logger = createLogger({ file });
    const error = new EdocError(
      'EDOC_SERVICE_UNAUTHORIZED',
      'the service refused the key of company main',
      {
        httpStatus: 401,
        headers: { 'x-api-key': KEY },
      },
    );
    logger.error({ err: error, company: 'main' }, 'submissions paused');
    logger.error(new EdocError('EDOC_REPORT_WRITE', 'disk full', { file: 'a.csv' }));
    await logger.close();
    const [first, second] = await readLines(file);
    expect(first).toMatchObject({
      msg: 'submissions paused',
      company: 'main',
      code: 'EDOC_SERVICE_UNAUTHORIZED',
      err: {
        type: 'EdocError',
        code: 'EDOC_SERVICE_UNAUTHORIZED',
        message: 'the service refused the key of company main',
        context: { httpStatus: 401, headers: { 'x-api-key': '[redacted]' } },
      },
    });
    expect(String((first.err as { stack: string }).stack)).toContain('EdocError');
    expect(second).toMatchObject({
      msg: 'disk full',
      code: 'EDOC_REPORT_WRITE',
      err: { context: { file: 'a.csv' } },
    });
  });

  test('circular and very deep objects are logged without crashing', async () => {
    const file = await logFile();
    const logger = createLogger({ file });
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    let deep: Record<string, unknown> = { token: KEY };
    for (let i = 0; i < 30; i += 1) deep = { next: deep };
    logger.info({ loop, deep }, 'odd shapes');
    await logger.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    const [line] = await readLines(file);
    expect(line.loop).toEqual({ name: 'loop', self: '[Circular]' });
  });

  test('reopen after the file was renamed (logrotate) writes to a new file by the same name', async () => {
    const file = await logFile();
    const logger = createLogger({ file });
    logger.info('before rotation');
    await rename(file, `${file}.1`);
    logger.info('still the old file until reopen');
    logger.reopen();
    logger.info('after rotation');
    await logger.close();
    const rotated = (await readLines(`${file}.1`)).map((line) => line.msg);
    const fresh = (await readLines(file)).map((line) => line.msg);
    expect(rotated).toEqual(['before rotation', 'still the old file until reopen']);
    expect(fresh).toEqual(['after rotation']);
  });

  test("a file logrotate created group-readable (create 0640) is the owner's only again once the logger reopens it; so is one found at start", async () => {
    const file = await logFile();
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '');
    await chmod(file, 0o644);
    const logger = createLogger({ file });
    logger.info('start');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await rename(file, `${file}.1`);
    // what logrotate's `create 0640` leaves before its postrotate reload
    await writeFile(file, '');
    await chmod(file, 0o640);
    logger.reopen();
    logger.info('after rotation');
    await logger.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readLines(file)).map((line) => line.msg)).toEqual(['after rotation']);
  });

  test('close is idempotent and later log calls are dropped', async () => {
    const file = await logFile();
    const logger = createLogger({ file });
    logger.info('one');
    await Promise.all([logger.close(), logger.close()]);
    await logger.close();
    logger.info('after close');
    logger.reopen();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    expect((await readLines(file)).map((line) => line.msg)).toEqual(['one']);
  });

  test('with sync: false, close() still waits until every line is on disk', async () => {
    const file = await logFile();
    const logger = createLogger({ file, sync: false });
    for (let i = 0; i < 2_000; i += 1) logger.info({ i }, 'line');
    await logger.close();
    const lines = await readLines(file);
    expect(lines).toHaveLength(2_000);
    expect(lines[1_999]).toMatchObject({ i: 1_999 });
  });

  test('the console stream gets one readable, redacted line per event', async () => {
    const file = await logFile();
    const printed: string[] = [];
    const logger = createLogger({
      file,
      consoleStream: { write: (text: string) => printed.push(text) },
    });
    logger.registerSecret(KEY);
    logger
      .child({ company: 'main', kind: 'invoice' })
      .warn({ file: 'ventas.csv', attempt: 2, apiKey: KEY }, `retrying ${KEY}`);
    await logger.close();
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} WARN {2}retrying \[redacted\] {2}company=main kind=invoice file=ventas\.csv attempt=2 apiKey=\[redacted\]\n$/,
    );
  });
});

describe('formatConsoleLine', () => {
  test('shows time, level, message, the stable keys first and the error message', () => {
    const line = JSON.stringify({
      level: 'error',
      time: '2026-11-03T14:03:07.120Z',
      pid: 1,
      doc: 'SETP1',
      company: 'main',
      msg: 'failed',
      extra: { a: 1 },
      err: { message: 'boom\nsecond line' },
    });
    expect(formatConsoleLine(line)).toBe(
      '14:03:07.120 ERROR failed  company=main doc=SETP1 extra={"a":1} err=boom second line\n',
    );
  });
});
