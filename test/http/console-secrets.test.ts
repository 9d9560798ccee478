/**
 * A configured secret inside outside text (here a file name holding the console token and an API key,
 * as an ERP or a careless person may name an export) never reaches a console page: the files list,
 * the file's page, a search for it and the document's page show `[redacted]`. A real daemon (the CLI
 * as a child process) over real HTTP.
 */
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest } from '../helpers/daemon-fixture.js';
import { buildCli, COMPANY_MAIN, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const TOKEN = 'console-token-0123456789abcdef';
const NAME = `export ${TOKEN} ${COMPANY_MAIN.apiKey}.json`;

async function listenerUrl(daemon: DaemonProcess): Promise<string> {
  const line = await daemon.waitForLog((l) => l.msg === 'operator listener started');
  return String(line.url);
}

describe('console pages and configured secrets', () => {
  daemonTest(
    'a file named after the token and an API key is shown with both redacted',
    async ({ daemonProject }) => {
      const { project, startDaemon } = await daemonProject({
        http: { listen: '127.0.0.1:0', token: TOKEN },
      });
      const daemon = await startDaemon();
      const url = await listenerUrl(daemon);
      await project.drop('invoice', NAME, jsonText([invoice(990_300_021)]));
      await daemon.waitForLog((l) => l.msg === 'file complete');

      const pages = [
        '/files',
        '/files/1',
        '/documents/1',
        `/search?q=${encodeURIComponent('export')}`,
      ];
      for (const page of pages) {
        const response = await fetch(`${url}${page}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        const text = await response.text();
        expect(response.status, page).toBe(200);
        expect(text, page).not.toContain(TOKEN);
        expect(text, page).not.toContain(COMPANY_MAIN.apiKey);
        expect(text, page).toContain('export [redacted] [redacted].json');
      }
    },
  );
});
