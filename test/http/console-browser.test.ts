/**
 * The console in a real headless Chromium (Debian's `chromium`, driven by playwright-core): a real
 * daemon (child process) with its listener on a free port and a token, the emulator failing every
 * request so one invoice ends `failed`; the browser logs in with the token, finds the document by
 * its number, retries it once the service answers again, and sees it `accepted`. With
 * EDOC_CONSOLE_SCREENSHOT=1 it writes the screenshot docs/operations.md shows (docs/console.png);
 * otherwise the screenshot goes to a temporary folder, so a test run leaves the work tree as it was.
 * Skipped, with one line saying why, on a machine without /usr/bin/chromium (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = existsSync(CHROMIUM)
  ? undefined
  : `console browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`;
if (SKIP !== undefined) process.stderr.write(`${SKIP}\n`);

const TOKEN = 'browser-test-token-0123456789abcdef';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const DOCS_SCREENSHOT = path.resolve(__dirname, '../../docs/console.png');

beforeAll(async () => {
  if (SKIP === undefined) await buildCli();
}, BUILD_TIMEOUT_MS);

async function launch(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
    timeout: 60_000,
  });
}

/** The document's state as its page shows it. */
async function shownState(page: Page): Promise<string> {
  return (await page.locator('tr:has(th:text-is("state")) td .state').first().textContent()) ?? '';
}

describe.skipIf(SKIP !== undefined)('the console in a real browser', () => {
  test('logs in with the token, finds the failed invoice by its number, retries it and sees it accepted', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { errorRate: 1 },
      companies: [COMPANY_MAIN],
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
      http: { listen: '127.0.0.1:0', token: TOKEN },
    });
    const daemon = await startDaemon();
    const url = String((await daemon.waitForLog((l) => l.msg === 'operator listener started')).url);
    await project.drop(
      'invoice',
      'ventas-noche.json',
      jsonText([invoice(990_400_001), invoice(990_400_002)]),
    );
    const failed = await project.finalResult('invoice', 'ventas-noche.json');
    expect(failed.counts).toMatchObject({ total: 2, failed: 2 });
    await emulator.client.setFaults({});

    const userData = await mkdtemp(path.join(os.tmpdir(), 'edoc-chromium-'));
    const context = await launch(userData);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`${url}/`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name="token"]', TOKEN);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${url}/`);
      expect(await page.locator('h1').textContent()).toBe('Companies');

      await page.fill('input[name="q"]', 'SETP990400001');
      await page.selectOption('select[name="by"]', 'number');
      await page.click('form.search button[type="submit"]');
      await page.waitForURL(/\/search\?/);
      await page.click('a:text-is("main/invoice/SETP/990400001")');
      await page.waitForURL(/\/documents\/\d+$/);
      expect(await page.locator('h1').textContent()).toBe('Document main/invoice/SETP/990400001');
      expect(await shownState(page)).toBe('failed');

      const documentUrl = page.url();
      await page.click('button:text-is("Retry")');
      await page.waitForURL(/\/documents\/\d+\?notice=/);
      expect(await page.locator('.notice').first().textContent()).toBe(
        're-queued 1 document(s) of 1 file(s)',
      );
      await eventually(
        async () => {
          await page.goto(documentUrl);
          return (await shownState(page)) === 'accepted' ? true : undefined;
        },
        'the document page shows it accepted',
        20_000,
      );
      expect(await page.locator('td:text-is("requeued")').count()).toBe(1);
      await page.screenshot({
        path:
          process.env.EDOC_CONSOLE_SCREENSHOT === '1'
            ? DOCS_SCREENSHOT
            : path.join(userData, 'console.png'),
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await rm(userData, { recursive: true, force: true });
    }
    expect((await emulator.client.issued()).length).toBe(1);
    const result = await eventually(
      async () => {
        const r = await project.result('invoice', 'ventas-noche.json');
        return r?.counts.accepted === 1 ? r : undefined;
      },
      'result.json rewritten with the retried invoice accepted',
      15_000,
    );
    expect(result.counts).toMatchObject({ total: 2, accepted: 1, failed: 1 });
  }, 180_000);
});
