/**
 * An outsider's attack on one node serving several companies: one company's inbox folder removed (or
 * moved away) while the daemon runs, and made again by the ERP or a person. chokidar says nothing when
 * a folder it watches goes away and does not see into the one made in its place: without a check of
 * its own the daemon would never take the files dropped there again, and say nothing of it.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli, COMPANY_MAIN, COMPANY_OTHER, sleep } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe.each([
  { mode: 'fs events', usePolling: false },
  { mode: 'polling', usePolling: true },
])("a company's inbox folder removed while the daemon runs ($mode)", ({ usePolling }) => {
  test('its folder removed (then moved away) and made again: files dropped there are taken, a warn line says so, the other company is untouched', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      companies: [COMPANY_MAIN, COMPANY_OTHER],
      watch: { usePolling },
    });
    const daemon = await startDaemon();
    await project.drop('invoice', 'first.jsonl', jsonlText([invoice(990_272_001)]), 'main');
    expect((await project.finalResult('invoice', 'first.jsonl')).counts.accepted).toBe(1);

    // the company's whole folder is removed; the ERP makes its kind folder again and drops a file
    await rm(path.dirname(project.inbox('invoice', 'main')), { recursive: true });
    await sleep(300);
    await project.drop('invoice', 'second.jsonl', jsonlText([invoice(990_272_002)]), 'main');
    await project.drop(
      'invoice',
      'theirs.jsonl',
      jsonlText([invoice(990_272_101, COMPANY_OTHER)]),
      'other',
    );
    const second = await project.finalResult('invoice', 'second.jsonl', { timeoutMs: 15_000 });
    expect(second.counts).toMatchObject({ total: 1, accepted: 1 });
    const theirs = await project.finalResult('invoice', 'theirs.jsonl', { company: 'other' });
    expect(theirs.counts).toMatchObject({ total: 1, accepted: 1 });
    // one line per kind folder of the company (all were removed with it)
    const warned = await daemon.waitForLog(
      (l) =>
        l.msg.includes('inbox folder was removed') && l.company === 'main' && l.kind === 'invoice',
    );
    expect(warned.level).toBe('warn');

    // moved away (renamed) this time, with nobody making it again: the daemon makes it, as at start
    const moved = `${project.inbox('invoice', 'main')}-old`;
    await rename(project.inbox('invoice', 'main'), moved);
    await sleep(3_000);
    await project.drop('invoice', 'third.jsonl', jsonlText([invoice(990_272_003)]), 'main');
    const third = await project.finalResult('invoice', 'third.jsonl', { timeoutMs: 15_000 });
    expect(third.counts).toMatchObject({ total: 1, accepted: 1 });

    const issued = await emulator.client.issued({ company: COMPANY_MAIN.id });
    expect(issued.map((d) => d.number).sort()).toEqual(['990272001', '990272002', '990272003']);
  }, 90_000);
});
