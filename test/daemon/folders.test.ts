/**
 * Which files lie directly in a watched inbox folder (their originals are archived once final): the
 * one folder the file's place names is compared, with one company (inbox/<kind>/) and with several
 * (inbox/<company>/<kind>/). The configuration is the real loader's.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { inInboxFolder, inboxFolders } from '../../src/intake/folders.js';

const cwd = path.join(path.sep, 'srv', 'edoc');

async function configWith(aliases: string[], kinds: Record<string, unknown> = {}) {
  return resolveConfig(
    {
      service: { baseUrl: 'http://127.0.0.1:9' },
      companies: aliases.map((alias, i) => ({
        alias,
        id: 1001 + i,
        nit: String(900_123_456 + i),
        apiKey: `k${i}`,
        userId: 7,
      })),
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
      kinds,
    },
    { file: 'edoc-bridge.yaml', cwd, env: {} },
  );
}

describe('inInboxFolder', () => {
  test('several companies: inbox/<company>/<kind>/ only, for a company and kind that exist and are enabled', async () => {
    const config = await configWith(
      Array.from({ length: 200 }, (_, i) => `e${i + 1}`),
      { payroll: { enabled: false } },
    );
    const inbox = path.join(cwd, 'inbox');
    expect(inInboxFolder(config, path.join(inbox, 'e200', 'invoice', 'a.jsonl'))).toBe(true);
    expect(inInboxFolder(config, path.join(inbox, 'e1', 'credit-note', 'a.csv'))).toBe(true);
    expect(inInboxFolder(config, path.join(inbox, 'e201', 'invoice', 'a.jsonl'))).toBe(false); // no such company
    expect(inInboxFolder(config, path.join(inbox, 'e1', 'payroll', 'a.jsonl'))).toBe(false); // kind disabled
    expect(inInboxFolder(config, path.join(inbox, 'e1', 'invoice', 'sub', 'a.jsonl'))).toBe(false); // below the folder
    expect(inInboxFolder(config, path.join(inbox, 'invoice', 'a.jsonl'))).toBe(false); // the one-company place
    expect(inInboxFolder(config, path.join(cwd, 'outbox', 'e1', 'invoice', 'a.jsonl'))).toBe(false);
    expect(inInboxFolder(config, path.join(cwd, 'elsewhere', 'e1', 'invoice', 'a.jsonl'))).toBe(
      false,
    );
    // the same answer as comparing with every watched folder
    for (const f of inboxFolders(config).slice(0, 50))
      expect(inInboxFolder(config, path.join(f.dir, 'x.csv'))).toBe(true);
  });

  test('one company: inbox/<kind>/, not inbox/<company>/<kind>/', async () => {
    const config = await configWith(['main']);
    expect(inInboxFolder(config, path.join(cwd, 'inbox', 'invoice', 'a.jsonl'))).toBe(true);
    expect(inInboxFolder(config, path.join(cwd, 'inbox', 'main', 'invoice', 'a.jsonl'))).toBe(
      false,
    );
    expect(inInboxFolder(config, path.join(cwd, 'a.jsonl'))).toBe(false);
  });
});
