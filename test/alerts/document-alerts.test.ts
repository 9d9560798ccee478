/**
 * In-doubt alerts in a cluster: raised by the company's owner only (three nodes must not raise one each),
 * and an episode of a company the node no longer runs is left to its new owner, never ended with a false
 * "no document in doubt any more". A real Alerter writing its log to a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { Alerter } from '../../src/alerts/alerter.js';
import { DocumentAlerts } from '../../src/alerts/document-alerts.js';
import { alertsSchema } from '../../src/config/alerts-schema.js';
import { createLogger } from '../../src/log/logger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('in-doubt alerts: only for the companies this node owns; a company that moved away keeps its episode for its owner', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-doc-alerts-'));
  dirs.push(dir);
  const logger = createLogger({ file: path.join(dir, 'alerts.log') });
  const alerter = new Alerter({ logger });
  let owned = new Set(['a']);
  const alerts = new DocumentAlerts({
    alerter,
    config: () => alertsSchema.parse({}),
    tickMs: 20,
    isPaused: () => false,
    onError: (err) => {
      throw err;
    },
    counts: () => [
      { company: 'a', inDoubt: 2, unsent: 0 },
      { company: 'b', inDoubt: 3, unsent: 0 },
    ],
    companies: { owns: (company) => owned.has(company) },
  });
  alerts.start();
  try {
    await until("a's in-doubt alert", () => alerter.isOpen('document-in-doubt:a'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // several ticks
    expect(alerter.isOpen('document-in-doubt:b')).toBe(false);
    // a moves to another node, b comes here
    owned = new Set(['b']);
    await until("b's in-doubt alert", () => alerter.isOpen('document-in-doubt:b'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alerter.isOpen('document-in-doubt:a')).toBe(true); // not ended: a still has documents in doubt
    expect(alerter.recent(10).map((r) => [r.company, r.kind, r.severity])).toEqual([
      ['b', 'document-in-doubt', 'error'],
      ['a', 'document-in-doubt', 'error'],
    ]);
  } finally {
    alerts.close();
    await logger.close();
  }
});
