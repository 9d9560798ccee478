/**
 * The rate across two runs on one state folder (daemon/run-marks.ts): a run waits one window past the last
 * run's last request — the moment it stopped cleanly, or now when it died while sending — before any
 * request of any company. Real files in a temporary state folder; a real logger.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  followLastRun,
  markEnded,
  markRunning,
  previousRunEnd,
  RUN_MARKS_FILE,
} from '../../src/daemon/run-marks.js';
import { createLogger } from '../../src/log/logger.js';
import { CompanyRates } from '../../src/rate/company-rate.js';

const dirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-run-marks-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
});

const COMPANY = { alias: 'main', rate: { requestsPerSecond: 5 } };

describe('run marks', () => {
  test("no run before: nothing to wait for; a run that stopped: its end; a run that died while sending, or a torn mark: this process's start", () => {
    const dir = stateDir();
    expect(previousRunEnd(dir, 10_000, 9_800)).toBeUndefined();
    markRunning(dir, 9_000);
    expect(previousRunEnd(dir, 10_000, 9_800)).toBe(9_800); // it died, before this process started
    markEnded(dir, 9_500);
    expect(previousRunEnd(dir, 10_000, 9_800)).toBe(9_500);
    expect(previousRunEnd(dir, 9_000, 8_800)).toBe(9_000); // a clock stepped back: never a wait beyond a window from now
    writeFileSync(path.join(dir, RUN_MARKS_FILE), '{"ended":');
    expect(previousRunEnd(dir, 10_000, 9_800)).toBe(9_800);
  });

  test("followLastRun holds every company's rate one window past the last run's end and marks this run as sending", async () => {
    const dir = stateDir();
    const logger = createLogger({ file: path.join(dir, 'logs', 'x.log') });
    let clock = 50_000;
    const rates = new CompanyRates({ now: () => clock, marginMs: 0 });
    const made = rates.of({ alias: 'made', rate: { requestsPerSecond: 5 } });
    const ended = Date.now() - 400; // the last run's requests ended 400 ms ago
    markEnded(dir, ended);
    expect(followLastRun(dir, rates, logger)).toBe(true);
    // one window (1 s at 5/s) past `ended`, counted from followLastRun's own clock reading, which lies
    // between `ended` + 400 and `looked`: 600 ms less the time this machine took to get there
    const looked = Date.now();
    expect(made.waitMs()).toBeGreaterThanOrEqual(ended + 1_000 - looked);
    expect(made.waitMs()).toBeLessThanOrEqual(600);
    // a company whose rate is made later waits as well
    expect(rates.of(COMPANY).waitMs()).toBeGreaterThanOrEqual(ended + 1_000 - looked);
    clock += 600;
    expect(made.waitMs()).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, RUN_MARKS_FILE), 'utf8'))).toMatchObject({
      running: { pid: process.pid },
    });
    await logger.close();
  });

  test('a state folder that cannot be written: the run goes on (false) with one warning naming it', async () => {
    const dir = stateDir();
    const notAFolder = path.join(dir, 'state');
    writeFileSync(notAFolder, 'a file where the state folder should be'); // ENOTDIR, even for root
    const logFile = path.join(dir, 'x.log');
    const logger = createLogger({ file: logFile });
    expect(followLastRun(notAFolder, new CompanyRates(), logger)).toBe(false);
    await logger.close();
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; state: string });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ state: notAFolder });
    expect(lines[0].msg).toMatch(/could not mark this run/);
  });
});
