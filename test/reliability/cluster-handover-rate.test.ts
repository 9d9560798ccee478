/**
 * A company's rate across a handover (issue 13: "the per-company rate window stays exact" because one node
 * owns the company). Each node keeps the company's sliding window in memory, so a node that takes a
 * company over starts with an empty window — while the requests its last owner sent in the second before
 * are still in the service's. Here node-a sends one company's documents at its cap, is stopped with SIGTERM
 * (a graceful stop hands the lease over at once) and node-b takes over within a heartbeat: the emulator's
 * busiest sliding second around the handover is compared with the cap.
 */
import { beforeAll, expect, test } from 'vitest';
import { ClusterNode, clusterCompanies, createClusterProject, LedgerReader } from '../helpers/cluster-project.js';
import { buildCli, eventually, startTestEmulator } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg } from '../helpers/postgres.js';
import { Timeline } from '../torture/scenarios/cluster-timeline.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describePg('the rate across a handover', () => {
  test('after SIGTERM of the owner, the next owner does not send more than the cap within any sliding second', async ({ annotate }) => {
    const companies = clusterCompanies(1, [4], 4);
    const emulator = await startTestEmulator(companies, { latencyMs: 20 });
    const timeline = new Timeline();
    timeline.trace(emulator);
    const { project, db } = await createClusterProject({ baseUrl: emulator.url, companies }, 1_000);
    const ledger = await LedgerReader.open(db);
    const a = new ClusterNode('node-a', project);
    const b = new ClusterNode('node-b', project);
    try {
      await a.start();
      await eventually(async () => ((await ledger.owned()).get('node-a')?.length === 1 ? true : undefined), 'node-a holding co1');
      await b.start();
      await project.drop('invoice', 'constante.jsonl', jsonlText(Array.from({ length: 80 }, (_, k) => invoice(990_000_001 + k, companies[0]))), 'co1');
      // node-a sends at the cap for a while
      await eventually(async () => ((await emulator.client.stats()).totalRequests >= 12 ? true : undefined), 'node-a sending', 30_000);
      timeline.mark('SIGTERM node-a');
      await a.stop();
      await eventually(async () => ((await ledger.owned()).get('node-b')?.length === 1 ? true : undefined), 'node-b holding co1', 15_000);
      const at = (await emulator.client.stats()).totalRequests;
      await eventually(async () => ((await emulator.client.stats()).totalRequests >= at + 8 ? true : undefined), 'node-b sending', 30_000);
      const busiest = (await emulator.client.stats()).busiestSecond[String(companies[0].id)];
      const windows = timeline.overCap(companies, [a, b]);
      await annotate(`busiest second ${busiest} (cap 4); over the cap: ${JSON.stringify(windows)}`);
      expect(windows).toEqual([]);
      expect(busiest).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await ledger.close();
      await emulator.close();
      await project.remove();
      await db.drop();
    }
  }, 90_000);
});
