// bench/ledger-copy.mjs --takeover: the companies (bench/lib/cluster.mjs's, with their check digits), an
// emulator seeded with them whose invoice submissions are counted per number, and one cluster project
// folder (shared inbox/outbox, a state and log folder per node) whose folders the fixture's files name.
// takeOver() runs N nodes on a copied ledger, checks the result against the SQLite source and prints it.
import os from 'node:os';
import { benchCompanies, checkDigit, clusterProject, startClusterEmulator } from './cluster.mjs';
import {
  checkTakeover,
  countSubmissions,
  resetProject,
  runNodes,
  sourceExpectations,
  statesAfter,
} from './takeover.mjs';
import { log } from './util.mjs';

/** The first invoice number: inside the emulator's range SETP 990,000,000–995,000,000. */
const FIRST = 990_400_000;

const fmt = (x) => x.toLocaleString('en');

export async function takeoverScene({ db, n, rate, leaseMs = 15_000 }) {
  const companies = benchCompanies(n).map((c) => ({ ...c, checkDigit: checkDigit(c.nit) }));
  let emulator = await startClusterEmulator(companies, {});
  let submissions = await countSubmissions();
  const project = await clusterProject({
    baseUrl: emulator.url,
    companies,
    rate: { requestsPerSecond: rate, concurrency: 8 },
    db,
    leaseMs,
  });
  const sendable = JSON.stringify({
    root: project.dir,
    first: FIRST,
    companies: companies.map(({ alias, nit, checkDigit: cd }) => ({ alias, nit, checkDigit: cd })),
  });
  return {
    sendable,
    /** A fresh emulator (it remembers what it issued) and the project pointed at `target`. */
    async reset(target) {
      submissions.restore();
      await emulator.close();
      emulator = await startClusterEmulator(companies, {});
      submissions = await countSubmissions();
      await resetProject(project, { baseUrl: emulator.url, url: target.url });
    },
    async takeOver({ nodes, db: target, password, sqliteFile, restart = false }) {
      const source = sourceExpectations(sqliteFile);
      const load = os.loadavg();
      const run = await runNodes({
        project,
        nodes,
        db: target,
        password,
        restart,
        settleTimeoutMs: 60 * 60_000,
        onProgress: (left, ms) =>
          log(
            `${nodes} node(s), ${(ms / 1000).toFixed(0)} s: ${left.sending} sending, ${left.due} due`,
          ),
      });
      const after = await statesAfter(target, password);
      const snapshot = emulator.snapshot();
      const e1 = Object.values(snapshot.requests.E1 ?? {}).reduce((a, b) => a + b, 0);
      const result = checkTakeover(source, submissions, after, e1);
      const g = source.groups;
      const busiest = Object.values(snapshot.busiestSecond).reduce((a, b) => Math.max(a, b), 0);
      console.log(
        `  take-over by ${nodes} node${nodes > 1 ? 's' : ''}${restart ? ', one stopped and restarted midway' : ''} (${companies.length} companies, ${rate}/s and 8 in flight each, lease ${leaseMs} ms; load at start ${load.map((l) => l.toFixed(2)).join(' ')}, at the end ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}):`,
      );
      console.log(
        `    source: ${fmt(source.total)} documents — final ${fmt(g.final.length)}, in-doubt ${fmt(g.inDoubt.length)}, pending due ${fmt(g.pendingDue.length)}, ` +
          `pending held back ${fmt(g.pendingHeld.length)}, sending with own number ${fmt(g.sendingNumbered.length)}, sending service-numbered ${fmt(g.sendingUnnumbered.length)}`,
      );
      console.log(
        `    settled ${(run.settledMs / 1000).toFixed(1)} s after the first node was started (all ready after ${(run.readyMs / 1000).toFixed(1)} s); ` +
          `${fmt(submissions.total)} invoice requests (${fmt(result.resent)} resends of numbered 'sending' ones), ${(submissions.total / (run.settledMs / 1000)).toFixed(0)} requests/s; ` +
          `emulator statuses ${JSON.stringify(snapshot.requests.E1 ?? {})}, busiest second of a company ${busiest}`,
      );
      if (run.restarted) {
        console.log(
          `    node-1 stopped (SIGTERM) ${(run.restarted.atMs / 1000).toFixed(1)} s in, with ${fmt(run.restarted.left.due)} due and ${fmt(run.restarted.left.sending)} sending; ` +
            `stopped and started again in ${(run.restarted.stopMs / 1000).toFixed(1)} s`,
        );
      }
      console.log(
        `    peak RSS per node ${run.peakMb.map((m) => `${m.toFixed(0)} MB`).join(', ')}; exits ${run.exits.map((e) => `${e.name} ${e.code ?? e.signal}`).join(', ')}`,
      );
      for (const c of result.checks) {
        console.log(
          `    ${c.failed === 0 ? 'ok  ' : 'FAIL'} ${c.name}: ${fmt(c.documents)}${c.failed ? `, ${fmt(c.failed)} failed: ${c.examples.join('; ')}` : ''}`,
        );
      }
      for (const [name, problems] of Object.entries(run.problems)) {
        const entries = Object.entries(problems);
        if (entries.length > 0)
          console.log(`    ${name} log: ${entries.map(([m, k]) => `${m} ×${k}`).join('; ')}`);
      }
      const exitsOk = run.exits.every((e) => e.code === 0);
      if (!exitsOk) console.log('    FAIL a node did not exit 0 on SIGTERM');
      return result.ok && exitsOk;
    },
    dir: project.dir,
    async close({ keep = false } = {}) {
      submissions.restore();
      await emulator.close();
      if (!keep) await project.remove();
    },
  };
}
