import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceivedPuller } from '../../src/received/puller.js';
import type { ReceivedSource } from '../../src/received/fetch-page.js';
import { receivedKey } from '../../src/received/received-files.js';
import type { ListReceivedInput } from '../../src/service/client-types.js';
import {
  TODAY,
  companyPulls,
  addReceived,
  counts,
  harness,
  listFiles,
  readIndex,
  readLog,
  receivedDoc,
  seedDocs,
  type Harness,
} from './helpers.js';

const WINDOW = { from: '2026-03-01', to: TODAY };
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The real client, with a hook that runs after a page is answered (to change the emulator between pages). */
function hooked(
  x: Harness,
  after: (input: ListReceivedInput, call: number) => Promise<void>,
): ReceivedSource {
  let calls = 0;
  return {
    async listReceived(company, input, options) {
      const res = await x.client.listReceived(company, input, options);
      calls += 1;
      await after(input, calls);
      return res;
    },
  };
}

function puller(x: Harness, client: ReceivedSource = x.client): ReceivedPuller {
  return new ReceivedPuller({
    ledger: x.ledger,
    client,
    config: x.config,
    logger: x.logger,
    today: () => TODAY,
  });
}

function expectEachOnce(x: Harness, total: number): void {
  const dir = path.join(x.outbox, 'main');
  const rows = readIndex(dir).rows;
  expect(rows).toHaveLength(total);
  expect([...counts(rows.map((r) => r.cufe)).values()].every((n) => n === 1)).toBe(true);
  expect(listFiles(dir).filter((f) => f.endsWith('.json'))).toHaveLength(total);
  for (const r of rows) expect(fs.existsSync(path.join(dir, r.jsonFile))).toBe(true);
}

describe('pagination while documents arrive', () => {
  it('documents inserted between page reads (newest, middle and oldest) are neither missed nor repeated', async () => {
    h = await harness();
    const x = h;
    const late = [
      receivedDoc('LATE1', '2026-03-31'),
      receivedDoc('LATE2', '2026-03-20'),
      receivedDoc('LATE3', '2026-03-01'),
    ];
    // Lands among the documents page 2 already returned: re-checking page 1 alone would never see it.
    const mid = receivedDoc('MID1', '2026-03-12');
    const client = hooked(x, async (input, call) => {
      if (input.startDate !== '2026-03-01') return;
      // After March's page 1: one lands before it, one inside the part already read, one at the end.
      if (call === 1) await addReceived(x.emulator, 1001, late);
      if (call === 2) await addReceived(x.emulator, 1001, [mid]);
    });
    const result = await puller(x, client).pullCompany(x.config.companies[0], WINDOW);
    expect(result).toMatchObject({ complete: true, newDocs: 44, seenBefore: 0 });
    expectEachOnce(x, 44);
    for (const d of [...late, mid]) expect(await x.ledger.seenReceived('main', d.cufe)).toBe(true);
    // March's first read ended with 20 handled of 21 listed, so March was read again (4 more pages).
    expect(result.pages).toBe(9 + 4);
    expect(
      readLog(x.logFile).filter(
        (l) => l.msg === 'received documents arrived while the month was read; reading it again',
      ),
    ).toEqual([
      expect.objectContaining({
        company: 'main',
        window: '2026-03-01..2026-03-31',
        pass: 1,
        total: 21,
        handled: 20,
      }),
    ]);
  });

  it('a month whose documents never stop changing is left unfinished: cursor unmoved, read again next time', async () => {
    h = await harness();
    const x = h;
    let n = 0;
    const client = hooked(x, async (input) => {
      if (input.startDate === '2026-03-01' && input.page === 2)
        await addReceived(x.emulator, 1001, [receivedDoc(`FLOOD${n++}`, '2026-03-15')]);
    });
    const result = await puller(x, client).pullCompany(x.config.companies[0], WINDOW);
    expect(result).toMatchObject({ complete: false, stoppedBy: 'incomplete', cursor: undefined });
    expect(result.errors.map((e) => e.code)).toContain('EDOC_RECEIVED_INCOMPLETE');
    expect(await x.ledger.getCursor('main')).toBeUndefined();
    const again = await puller(x).pullCompany(x.config.companies[0], WINDOW);
    expect(again.complete).toBe(true);
    expectEachOnce(x, 40 + n);
  });
});

describe('a crash between pages', () => {
  it('loses nothing and duplicates nothing when the process dies after a page, even mid index row', async () => {
    h = await harness();
    const x = h;
    const crash = hooked(x, async (input) => {
      if (input.startDate === '2026-04-01' && input.page === 2)
        throw new Error('simulated crash after April page 1');
    });
    await expect(puller(x, crash).pullCompany(x.config.companies[0], WINDOW)).rejects.toThrow(
      'simulated crash',
    );
    // March was finished (cursor at its end); April page 1 written; nothing later.
    expect(await x.ledger.getCursor('main')).toBe('2026-03-31');
    const dir = path.join(x.outbox, 'main');
    expectEachOnce(x, 17 + 7);

    // The crash also caught the last index row half written (recorded in the ledger, row torn).
    const file = path.join(dir, 'received.csv');
    const text = fs.readFileSync(file);
    fs.writeFileSync(file, text.subarray(0, text.length - 40));

    const again = await puller(x).pullCompany(x.config.companies[0], WINDOW);
    expect(again).toMatchObject({
      complete: true,
      newDocs: 40 - 24,
      seenBefore: 24,
      cursor: TODAY,
    });
    expectEachOnce(x, 40);
    const keys = new Set(readIndex(dir).rows.map((r) => r.cufe));
    for (const d of seedDocs()) expect(keys.has(receivedKey(d))).toBe(true);
  });
});

describe('the scheduled window', () => {
  it('documents added inside the lookback window after a pull are picked up by the next one; older ones are not', async () => {
    h = await harness();
    const x = h;
    const scheduler = companyPulls(x, { today: () => TODAY });
    try {
      const [first] = await scheduler.pullNow('main');
      expect(first).toMatchObject({
        window: { from: '2026-03-01', to: TODAY },
        newDocs: 40,
        cursor: TODAY,
      });
      // lookbackDays 3: the next window is 2026-05-17 .. 2026-05-20.
      await addReceived(x.emulator, 1001, [
        receivedDoc('LB1', '2026-05-17'),
        receivedDoc('LB2', '2026-05-20'),
        receivedDoc('OLD1', '2026-05-10'),
      ]);
      const [second] = await scheduler.pullNow('main');
      expect(second).toMatchObject({
        window: { from: '2026-05-17', to: TODAY },
        newDocs: 2,
        complete: true,
      });
      const numbers = readIndex(path.join(x.outbox, 'main')).rows.map((r) => r.documentNumber);
      expect(numbers).toContain('LB1');
      expect(numbers).toContain('LB2');
      expect(numbers).not.toContain('OLD1');
    } finally {
      await scheduler.close();
    }
  });
});

describe('an outbox that cannot be written', () => {
  it('stops the pull with EDOC_REPORT_WRITE, the cursor at the last complete month; the next pull finishes the job', async () => {
    h = await harness();
    const x = h;
    const dir = path.join(x.outbox, 'main');
    fs.mkdirSync(dir, { recursive: true });
    // A file where April's folder must go: every write of an April document fails.
    fs.writeFileSync(path.join(dir, '2026-04'), 'in the way');
    const p = puller(x);
    const failed = await p.pullCompany(x.config.companies[0], WINDOW);
    expect(failed).toMatchObject({
      complete: false,
      stoppedBy: 'write',
      newDocs: 17,
      cursor: '2026-03-31',
    });
    expect(failed.errors.map((e) => e.code)).toContain('EDOC_REPORT_WRITE');
    expect(readLog(x.logFile).find((l) => l.msg === 'received pull did not finish')).toMatchObject({
      code: 'EDOC_REPORT_WRITE',
    });

    fs.rmSync(path.join(dir, '2026-04'));
    const again = await p.pullCompany(x.config.companies[0], WINDOW);
    expect(again).toMatchObject({ complete: true, newDocs: 23, seenBefore: 17, cursor: TODAY });
    expectEachOnce(x, 40);
  });
});
