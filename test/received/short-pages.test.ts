import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cli } from '../fixtures/cli/harness.js';
import { listFiles, readIndex, receivedDoc, tempDir } from './helpers.js';

/**
 * A service whose pages do not cover the `total` it counts: `cap` serves 2 documents a page but
 * reports `total_pages` for the 3 asked; `zero` says `total_pages` 0 with 3 of its 6 on page 1.
 */
type Mode = 'cap' | 'zero';
let mode: Mode = 'cap';
let server: http.Server;
let dir: string;
const march = Array.from({ length: 6 }, (_, i) =>
  receivedDoc(`M${i}`, `2026-03-${String(20 - i).padStart(2, '0')}`),
);

function page(url: URL): unknown {
  const n = Number(url.searchParams.get('page') ?? '1');
  const perPage = Number(url.searchParams.get('per_page') ?? '20');
  const total = march.length;
  if (mode === 'cap') {
    const data = march.slice((n - 1) * 2, n * 2);
    return { data, page: n, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
  }
  return {
    data: n === 1 ? march.slice(0, 3) : [],
    page: n,
    per_page: perPage,
    total,
    total_pages: 0,
  };
}

beforeAll(async () => {
  await buildCli();
  dir = tempDir('edoc-received-short-');
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ResultCode: 200, IsValid: true, Errors: [], ResultData: page(url) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fs.writeFileSync(
    path.join(dir, 'c.yaml'),
    [
      `service: { baseUrl: "http://127.0.0.1:${port}" }`,
      'companies:',
      '  - { alias: main, id: 1001, nit: "900123456", apiKey: key-1001 }',
      'received: { perPage: 3, startDate: 2026-03-01 }',
      '',
    ].join('\n'),
  );
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const pull = () =>
  cli(
    ['received', 'pull', '--config', 'c.yaml', '--from', '2026-03-01', '--to', '2026-03-31'],
    dir,
  );

describe('received pull: pages that list fewer documents than the service counts', () => {
  it('reads past a total_pages too small until every counted document is written', async () => {
    mode = 'cap';
    const run = await pull();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('main 2026-03-01..2026-03-31 page 3/3 (6 documents): 2 new');
    expect(run.stdout).toMatch(/done: 6 new, 0 seen before, 4 pages, 0 errors; cursor 2026-03-31/);
    const companyDir = path.join(dir, 'outbox/received/main');
    expect(readIndex(companyDir).rows).toHaveLength(6);
    expect(listFiles(path.join(companyDir, '2026-03'))).toHaveLength(6);
  });

  it('does not call a month complete, nor move the cursor, when its pages never list them all', async () => {
    mode = 'zero';
    fs.rmSync(path.join(dir, 'outbox'), { recursive: true, force: true });
    fs.rmSync(path.join(dir, 'state'), { recursive: true, force: true });
    const run = await pull();
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('no documents');
    expect(run.stdout).toContain('main 2026-03-01..2026-03-31 page 1/1 (6 documents): 3 new');
    expect(run.stdout).toMatch(/stopped \(incomplete\): 3 new, .* 1 error; cursor not set/);
    expect(run.stdout + run.stderr).toContain(
      'EDOC_RECEIVED_INCOMPLETE: The service counts 6 documents in 2026-03-01..2026-03-31 but its pages listed 3',
    );
  });
});
