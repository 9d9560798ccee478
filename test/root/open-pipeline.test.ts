/**
 * The composition root closes what it opened when an open fails on the way: the state folder's lock
 * (another process may then start), the embedded emulator it started (its port closed) and the address
 * it published for the commands run beside it. In-process, on a real SQLite ledger and emulator.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Ledger, LEDGER_FILE } from '../../src/ledger/index.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { openPipeline } from '../../src/root/open-pipeline.js';
import { startDaemon } from '../../src/root/start-daemon.js';
import { ENDPOINT_FILE } from '../../src/root/embedded-endpoint.js';
import { ROOT } from '../helpers/daemon-harness.js';

const dirs: string[] = [];
const loggers: AppLogger[] = [];
afterEach(async () => {
  for (const logger of loggers.splice(0)) await logger.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** One company on the embedded emulator, folders in a new temporary folder; `seed` as given. */
async function embedded(seed: string): Promise<{ config: Readonly<Config>; logger: AppLogger }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-root-'));
  dirs.push(root);
  const config = await resolveConfig(
    {
      service: { baseUrl: 'embedded' },
      emulator: { seed },
      companies: [
        { alias: 'main', id: 1001, nit: '900123456', apiKey: 'demo-key-1001', userId: 7 },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
      received: { enabled: false },
    },
    { file: 'edoc-bridge.yaml', cwd: root, env: {} },
  );
  const logger = createLogger({ file: path.join(root, 'logs', 'edoc-bridge.log'), level: 'info' });
  loggers.push(logger);
  return { config, logger };
}

/** The address the emulator logged when it started listening, from the log file. */
function emulatorUrlLogged(config: Readonly<Config>): string {
  const lines = fs
    .readFileSync(path.join(config.paths.logs, 'edoc-bridge.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"emulator listening"'));
  expect(lines).toHaveLength(1);
  return (JSON.parse(lines[0]) as { url: string }).url;
}

/** The ledger opens again in this process: the lock was released (a second open while held throws EDOC_LEDGER_LOCKED). */
async function openAgain(config: Readonly<Config>): Promise<void> {
  const again = Ledger.open(config.paths.state);
  await again.close();
}

describe('the composition root closes what it opened when an open fails', () => {
  it('a service that cannot be reached (no emulator seed): the ledger is closed and its lock released', async () => {
    const { config, logger } = await embedded('no-such-seed.json');
    await expect(openPipeline(config, logger)).rejects.toThrow(/seed .* cannot be read/);
    // the ledger was opened (its lock taken) before the service failed
    expect(fs.existsSync(path.join(config.paths.state, LEDGER_FILE))).toBe(true);
    await openAgain(config);
  });

  it('a daemon whose inbox cannot be made: the emulator it started is stopped and unpublished, the lock released', async () => {
    const { config, logger } = await embedded(path.join(ROOT, 'config/emulator-seed.json'));
    // a file where the inbox folder should be: the watcher cannot start
    fs.writeFileSync(config.paths.inbox, 'not a folder');
    await expect(startDaemon(config, logger, { drainTimeoutMs: 200 })).rejects.toThrow(
      /the inbox folder .* cannot be made \(.* is a file, not a folder\)/,
    );
    await logger.close();
    const url = emulatorUrlLogged(config);
    await expect(fetch(url)).rejects.toThrow();
    expect(fs.existsSync(path.join(config.paths.state, ENDPOINT_FILE))).toBe(false);
    await openAgain(config);
  });
});
