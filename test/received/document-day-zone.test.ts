import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cli } from '../fixtures/cli/harness.js';
import { readIndex, receivedDoc, tempDir } from './helpers.js';

let dir: string;

beforeAll(async () => {
  await buildCli();
  dir = tempDir('edoc-received-zone-');
  // The last second of March in Colombia, and the first half hour of April an hour east of GMT:
  // both are written on their own calendar day, which is not their UTC day.
  const colombia = {
    ...receivedDoc('TZ1', '2026-03-31'),
    documentDate: 'Tue, 31 Mar 2026 23:59:59 -0500',
  };
  const east = {
    ...receivedDoc('TZ2', '2026-04-01'),
    documentDate: 'Wed, 01 Apr 2026 00:30:00 +0100',
  };
  const seed = {
    today: '2026-04-10',
    companies: [
      {
        id: 1001,
        nit: '900123456',
        checkDigit: '0',
        name: 'Demo',
        apiKey: 'key-1001',
        userIds: [7],
        receivedDocuments: [colombia, east],
      },
    ],
  };
  fs.writeFileSync(path.join(dir, 'seed.json'), JSON.stringify(seed));
  fs.writeFileSync(
    path.join(dir, 'c.yaml'),
    [
      'service: { baseUrl: embedded }',
      'companies:',
      '  - { alias: main, id: 1001, nit: "900123456", apiKey: key-1001 }',
      'received: { perPage: 5, startDate: 2026-03-01 }',
      'emulator: { seed: seed.json }',
      '',
    ].join('\n'),
  );
}, 240_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('received pull: a documentDate in another zone keeps the day it is written on', () => {
  it('files each document under its written month and says that date in the index', async () => {
    const run = await cli(
      ['received', 'pull', '--config', 'c.yaml', '--from', '2026-03-01', '--to', '2026-04-30'],
      dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('main 2026-03-01..2026-03-31 page 1/1 (1 document): 1 new');
    expect(run.stdout).toContain('main 2026-04-01..2026-04-30 page 1/1 (1 document): 1 new');
    const companyDir = path.join(dir, 'outbox/received/main');
    const rows = readIndex(companyDir).rows.map((r) => [
      r.documentNumber,
      r.documentDate,
      r.jsonFile,
    ]);
    expect(rows).toEqual([
      ['TZ1', '2026-03-31', expect.stringMatching(/^2026-03\/TZ1_[0-9a-f]{12}\.json$/)],
      ['TZ2', '2026-04-01', expect.stringMatching(/^2026-04\/TZ2_[0-9a-f]{12}\.json$/)],
    ]);
    expect(fs.readdirSync(path.join(companyDir, '2026-03'))).toHaveLength(1);
    expect(fs.readdirSync(path.join(companyDir, '2026-04'))).toHaveLength(1);
  });
});
