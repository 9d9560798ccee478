/**
 * An export replaced while the daemon reads it: by a rename over it (the ERP writes `x.tmp` and renames
 * it onto the name being read) and by truncating it and writing other content in place. Nothing of the
 * content replaced may be issued; the new content is issued once, under one report of that name.
 */
import { rename, truncate, writeFile, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { eventually } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

for (const how of ['renamed over', 'truncated and rewritten'] as const) {
  test(`a file ${how} while it is read: the old content never issued, the new issued once`, async ({
    daemonProject,
  }) => {
    const { project: p, emulator, startDaemon } = await daemonProject({ stableMs: 300 });
    const daemon = await startDaemon();
    const base = how === 'renamed over' ? 990_400_000 : 990_500_000;
    const old = Array.from({ length: 3_000 }, (_, i) => base + i);
    const fresh = Array.from({ length: 20 }, (_, i) => base + 10_000 + i);
    const file = await p.drop('invoice', 'swap.jsonl', jsonlText(old.map((n) => invoice(n))));
    await eventually(
      () => ((p.ledgerStates().pending ?? 0) > 0 ? true : undefined),
      'the read under way',
      30_000,
    );
    const text = jsonlText(fresh.map((n) => invoice(n)));
    if (how === 'renamed over') {
      const tmp = path.join(path.dirname(file), 'swap.jsonl.tmp');
      await writeFile(tmp, text);
      await rename(tmp, file);
    } else {
      await truncate(file, 0);
      await appendFile(file, text);
    }
    const result = await p.finalResult('invoice', 'swap.jsonl', { timeoutMs: 90_000 });
    const issued = (await emulator.client.issued({ kind: 'invoice' })).map((d) => Number(d.number));
    const changed = daemon.logLines().filter((l) => l.code === 'EDOC_READ_CHANGED').length;
    expect(issued.filter((n) => old.includes(n))).toEqual([]);
    expect(issued.sort()).toEqual(fresh);
    expect(result.counts).toMatchObject({ total: 20, accepted: 20 });
    expect(changed).toBeGreaterThanOrEqual(1);
    expect(daemon.running).toBe(true);
  }, 150_000);
}
