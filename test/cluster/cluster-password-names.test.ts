/**
 * The ledger's password given the recommended way (PGPASSWORD, not in ledger.url) inside a file name and
 * a cell value: an operator's ERP that names its exports after whatever it was given, or a password
 * pasted into a note. docs/configuration.md promises the password shown as `[redacted]` everywhere.
 * Before the fix it was in clear in 5 places: the node's log, result.json, the retry file, `show` and
 * `show --json`.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { expect, it } from 'vitest';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { runCli } from '../helpers/cli-runner.js';
import { describePg, pgUrl, usePgDatabase } from '../helpers/postgres.js';

const COMPANIES = [clusterCompany(1)];

describePg('the ledger password from PGPASSWORD inside input names and cells', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: COMPANIES, leaseMs: 1_500 });

  it('reaches no log line, report or command output', async () => {
    const { server, name } = db();
    const node = await ctx.cluster.node('n1', { node: 'n1' });
    const config = parse(await readFile(node.configFile, 'utf8')) as { ledger: { url: string } };
    config.ledger.url = pgUrl(server, name, null);
    await writeFile(node.configFile, stringify(config));
    const env = { PGPASSWORD: server.password };
    const p = await ctx.cluster.start('n1', 30_000, { node: 'n1', env });
    const secret = server.password;
    const good = invoice(990_700_001, COMPANIES[0]);
    const bad = invoice(990_700_002, COMPANIES[0]);
    bad.IssueDate = `x${secret}`;
    const file = `export ${secret}.jsonl`;
    await ctx.cluster.drop('invoice', file, jsonlText([good, bad]), 'c1');
    const result = await ctx.cluster.finalResult('invoice', file, 'c1', 60_000);
    expect(result.counts.accepted).toBe(1);
    // a document that holds a configured secret is never sent (README, "Quoting input back")
    const held = result.documents.find((d) => d.index === 1);
    expect([held?.status, JSON.stringify(held?.errors)]).toEqual([
      'invalid',
      expect.stringContaining('EDOC_READ_SECRET'),
    ]);
    const runs = [
      await runCli(node, ['status'], { env }),
      await runCli(node, ['show', file], { env }),
      await runCli(node, ['show', file, '--json'], { env }),
    ];
    await p.stop();
    const out = path.join(ctx.cluster.shared.dir, 'outbox');
    const written = [
      ...(await readdir(path.join(node.dir, 'logs'), { recursive: true })).map((f) =>
        path.join(node.dir, 'logs', f),
      ),
      ...(await readdir(out, { recursive: true })).map((f) => path.join(out, f)),
    ];
    const leaks: string[] = [];
    for (const f of written) {
      const text = await readFile(f, 'utf8').catch(() => '');
      if (text.includes(secret) && !f.includes('archive')) leaks.push(f);
    }
    for (const [i, r] of runs.entries())
      if ((r.stdout + r.stderr).includes(secret)) leaks.push(`run ${i}`);
    if ((p.stdout + p.stderr).includes(secret)) leaks.push('node stdout/stderr');
    expect(leaks).toEqual([]);
  }, 120_000);
});
