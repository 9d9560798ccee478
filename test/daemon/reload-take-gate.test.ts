/**
 * A file's company is chosen when the file is taken, and the ledger records the file only once it is
 * hashed. A reload that changes the company's id or NIT in between must still see that file: it waits
 * for the record (the company's take gate, company/take-gate.ts) and is then refused like a reload with
 * the file open. The hash is held deterministically by a named pipe: opening it blocks until a writer
 * opens it, which the test does only when the reload was given its chance to decide first.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startInProcess } from '../helpers/alerting-daemon.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { COMPANY_MAIN, COMPANY_OTHER } from '../helpers/daemon-harness.js';

/** Opens the pipe's writing end and closes it: the reader blocked opening it reads an end of file. */
async function letReaderThrough(fifo: string, timeoutMs = 10_000): Promise<boolean> {
  for (const until = Date.now() + timeoutMs; Date.now() < until;) {
    try {
      // non-blocking: ENXIO while no reader has it open (never a writer left waiting)
      const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      await handle.close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      await sleep(20);
    }
  }
  return false;
}

describe('a reload landing between a take and its record', () => {
  test('main and other swapped while a file of main is hashed: waits for the record, then refused', async ({
    resources,
  }) => {
    const [a, b] = [COMPANY_MAIN, COMPANY_OTHER];
    const emulator = await resources.emulator([a, b]);
    const project = await resources.project({ baseUrl: emulator.url, companies: [a, b] });
    const { daemon } = await startInProcess(resources, project);
    const fifo = path.join(project.dir, 'held', 'ventas.jsonl');
    await mkdir(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    // the file's hash (and later its read) waits on the pipe; let it through at the end whatever happened
    resources.defer(async () => {
      while (await letReaderThrough(fifo, 500));
    });

    const taken = daemon.pipeline.take({
      path: fifo,
      kind: 'invoice',
      company: a.alias,
      size: 0,
      mtimeMs: 0,
    });
    await writeFile(
      project.configFile,
      project.configText({
        ...project.options,
        companies: [
          { ...a, id: b.id, nit: b.nit, apiKey: b.apiKey, checkDigit: b.checkDigit },
          { ...b, id: a.id, nit: a.nit, apiKey: a.apiKey, checkDigit: a.checkDigit },
        ],
      }),
    );
    const next = await loadConfig(project.configFile, {}, { cwd: project.dir });
    let settled = false;
    const decided = daemon.reload(next).then(
      () => undefined,
      (err: unknown) => err,
    );
    void decided.finally(() => (settled = true));
    // the reload decides now if nothing holds it back; the hash goes on once it decided or a second passed
    await Promise.race([decided, sleep(1_000)]);
    expect(settled, 'the reload waits for the file being taken').toBe(false);
    expect(await letReaderThrough(fifo)).toBe(true);

    const refusal = await decided;
    expect(refusal).toMatchObject({ code: 'EDOC_CONFIG_INVALID' });
    expect(String((refusal as Error).message)).toContain(
      `companies[0].id: company ${a.alias} would change (id ${a.id} → ${b.id}, nit ${a.nit} → ${b.nit}) while 1 file(s) of it are open (ventas.jsonl)`,
    );
    // the file holds no document (the pipe gave none): nothing sent under either company
    expect((await taken).outcome).toBe('failed-read');
    expect(await emulator.client.issued()).toHaveLength(0);
  }, 60_000);
});
