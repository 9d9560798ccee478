/**
 * The cluster attacked the way an operator or a hostile environment would, with real `edoc-bridge run`
 * child processes on one PostgreSQL ledger and the emulator over real HTTP (issue 13's outsider pass):
 * two processes configured with the same `cluster.node` (a copy-pasted configuration, two instances of
 * the systemd drop-in's EDOC_NODE=%H on one host); a node frozen past its lease and replaced under its own
 * name, then resumed; nodes whose configurations differ (a company only one node has); the database
 * password (in ~/.pgpass, in PGPASSWORD) looked for everywhere a node or a command writes; every node's
 * connections cut at once, repeatedly, mid-intake and mid-send.
 */
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, expect, it } from 'vitest';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { everyStateFolder } from '../fixtures/ledger/every-state.js';
import { tempDir } from '../ledger/helpers.js';
import { runCli } from '../helpers/cli-runner.js';
import {
  adminQuery,
  createDatabase,
  describePg,
  pgUrl,
  usePgDatabase,
} from '../helpers/postgres.js';

const COMPANIES = [1, 2, 3].map((i) => clusterCompany(i));
const LEASE_MS = 1_500;

describePg("cluster under an outsider's attack (child processes, one PostgreSQL ledger)", () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, {
    companies: COMPANIES,
    leaseMs: LEASE_MS,
    faults: { latencyMs: 5 },
  });
  let number = 990_300_000;

  /** Nodes a test started: a failed test's nodes are stopped before the next starts (they would hold its leases). */
  const started: DaemonProcess[] = [];
  afterEach(async () => {
    for (const p of started.splice(0)) {
      p.signal('SIGCONT');
      await p.stop();
    }
  });
  const start = async (dir: string, node: string, companies?: string[]): Promise<DaemonProcess> => {
    const p = await ctx.cluster.start(dir, 30_000, {
      node,
      ...(companies === undefined ? {} : { companies }),
    });
    started.push(p);
    return p;
  };
  /** Every file under `dir`, recursively (logs, outbox reports, archive, state). */
  const filesUnder = async (dir: string): Promise<string[]> =>
    (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name));
  const leases = async (): Promise<{ company: string; owner: string | null; epoch: number }[]> =>
    ctx.sql.all(
      'SELECT company, owner, epoch FROM company_leases WHERE expires_at > now() ORDER BY company',
    );
  const sendOnce = async (company: (typeof COMPANIES)[number], name: string): Promise<void> => {
    const numbers = Array.from({ length: 5 }, () => ++number);
    await ctx.cluster.drop(
      'invoice',
      name,
      jsonlText(numbers.map((n) => invoice(n, company))),
      company.alias,
    );
    const result = await ctx.cluster.finalResult('invoice', name, company.alias, 60_000);
    expect(result.counts.accepted).toBe(numbers.length);
    const issued = (await ctx.emulator.client.issued({ company: company.id, kind: 'invoice' })).map(
      (d) => Number(d.number),
    );
    for (const n of numbers)
      expect(
        issued.filter((x) => x === n),
        `invoice ${n} issued once`,
      ).toHaveLength(1);
  };

  it("a second process under a running node's name is refused (exit 2, EDOC_CLUSTER_NODE_IN_USE); the first keeps its companies", async () => {
    const first = await start('same-1', 'same');
    // every lease in force, read at one instant: a renewal late on a loaded machine leaves one expired for a
    // moment (it is renewed under the same epoch), so a read taken just then names fewer companies
    const inForce = (): Promise<Awaited<ReturnType<typeof leases>>> =>
      eventually(async () => {
        const held = await leases();
        return held.length === COMPANIES.length && held.every((l) => l.owner === 'same')
          ? held
          : undefined;
      }, 'same to hold every company');
    const epochs = await inForce();
    const second = await ctx.cluster.spawn('same-2', { node: 'same' });
    const exit = await second.exited;
    expect(exit.code, second.stderr).toBe(2);
    expect(second.stderr).toContain('EDOC_CLUSTER_NODE_IN_USE');
    expect(second.stderr).not.toContain(db().server.password);
    // nothing was taken from the first: same epochs, still its own pid in `nodes`
    expect(await inForce()).toEqual(epochs);
    expect(
      (await ctx.sql.get<{ pid: number }>("SELECT pid FROM nodes WHERE name = 'same'"))?.pid,
    ).toBe(first.child.pid);
    await sendOnce(COMPANIES[0], 'same-name.jsonl');
    await first.stop();
  }, 120_000);

  /** The pid in the name's row. */
  const namePid = async (): Promise<number | undefined> =>
    (await ctx.sql.get<{ pid: number }>("SELECT pid FROM nodes WHERE name = 'twin'"))?.pid;
  const REGAINED = "cluster: the other run of this node's name stopped beating";
  /** A run's last word on its name: it stood down ('lost'), it holds it again ('regained'), or neither. */
  const lastWord = (p: DaemonProcess): 'lost' | 'regained' | undefined => {
    const said = p
      .logLines()
      .filter((l) => l.code === 'EDOC_CLUSTER_NODE_IN_USE' || String(l.msg).startsWith(REGAINED));
    const last = said.at(-1);
    return last === undefined ? undefined : last.code === undefined ? 'regained' : 'lost';
  };
  /** Starts `twin` and freezes it until a second run under the name took it over; both are left running. */
  const frozenAndReplaced = async (): Promise<[DaemonProcess, DaemonProcess]> => {
    const frozen = await start('twin-1', 'twin');
    await eventually(
      async () =>
        (await leases()).filter((l) => l.owner === 'twin').length === COMPANIES.length
          ? true
          : undefined,
      'twin to hold every company',
    );
    frozen.signal('SIGSTOP');
    try {
      // the replacement waits until the frozen run's heartbeat is older than the lease, then takes the name and its leases
      const replacement = await start('twin-2', 'twin');
      await eventually(
        async () => ((await namePid()) === replacement.child.pid ? true : undefined),
        'the replacement to hold the name',
      );
      return [frozen, replacement];
    } finally {
      frozen.signal('SIGCONT');
    }
  };
  /**
   * One run per name, once the two settle: the one in the name's row holds every company, sends, and
   * said so if it had stood down before; the other said it stood down, took nothing since and runs on.
   */
  const oneRunPerName = async (twins: DaemonProcess[]): Promise<DaemonProcess> => {
    const winner = await eventually(
      async () => {
        const pid = await namePid();
        const named = twins.find((p) => p.child.pid === pid);
        const all = (await leases()).filter((l) => l.owner === 'twin').length === COMPANIES.length;
        return named !== undefined &&
          all &&
          twins.every((p) => p === named || lastWord(p) === 'lost')
          ? named
          : undefined;
      },
      'one run of twin to hold the name and every company, the other stood down',
      30_000,
    );
    expect(lastWord(winner)).not.toBe('lost');
    await sendOnce(COMPANIES[1], `twin-${winner.child.pid}.jsonl`);
    expect(await namePid()).toBe(winner.child.pid);
    for (const loser of twins.filter((p) => p !== winner)) {
      expect(loser.running).toBe(true);
      const lines = loser.logLines();
      const stoodDown = lines.findLastIndex((l) => l.code === 'EDOC_CLUSTER_NODE_IN_USE');
      expect(lines.slice(stoodDown).filter((l) => l.msg === 'cluster: company taken')).toEqual([]);
      await loser.stop();
    }
    // a stopped run did not mark the other run's row stopped
    expect(
      (
        await ctx.sql.get<{ stopped: boolean }>(
          "SELECT stopped_at IS NOT NULL AS stopped FROM nodes WHERE name = 'twin'",
        )
      )?.stopped,
    ).toBe(false);
    return winner;
  };

  it('a node frozen past its lease and replaced under its own name: once it is resumed, one of the two stands down (one run per name)', async () => {
    const [frozen, replacement] = await frozenAndReplaced();
    // The resumed run stands down, as a rule; on a loaded machine the replacement's own heartbeat can go
    // stale past the 1.5 s lease meanwhile, and then the resumed run takes the name back and the
    // replacement stands down (the next test makes that happen): one run per name, either way.
    const winner = await oneRunPerName([frozen, replacement]);
    await winner.stop();
  }, 120_000);

  it('a run that stood down takes its name back, and says so, when the run that took it stops beating', async () => {
    const [frozen, replacement] = await frozenAndReplaced();
    await frozen.waitForLog((l) => l.code === 'EDOC_CLUSTER_NODE_IN_USE', 30_000);
    replacement.signal('SIGSTOP');
    try {
      await frozen.waitForLog((l) => String(l.msg).startsWith(REGAINED), 30_000);
      await eventually(
        async () => ((await namePid()) === frozen.child.pid ? true : undefined),
        'the first run to hold the name again',
      );
    } finally {
      replacement.signal('SIGCONT');
    }
    const winner = await oneRunPerName([frozen, replacement]);
    expect(winner).toBe(frozen);
    await winner.stop();
  }, 120_000);

  it("a company only one node's configuration has is not left without an owner when another node joins", async () => {
    const wide = await start('wide', 'wide');
    await eventually(
      async () =>
        (await leases()).filter((l) => l.owner === 'wide').length === 3 ? true : undefined,
      'wide to hold all three',
    );
    // narrow knows c1 and c2 only: wide's fair share falls to 2 and it hands c3 (the last by name) back,
    // which narrow cannot take; wide takes it back when nobody did within two leases
    const narrow = await start('narrow', 'narrow', ['c1', 'c2']);
    await wide.waitForLog(
      (l) => l.msg === 'cluster: handing the company over (fair share)' && l.company === 'c3',
      30_000,
    );
    // wide's lease stays in force until its sender has stopped and it is released: wait for the take-back
    const handedAt = wide
      .logLines()
      .findIndex(
        (l) => l.msg === 'cluster: handing the company over (fair share)' && l.company === 'c3',
      );
    await eventually(
      async () =>
        wide
          .logLines()
          .slice(handedAt + 1)
          .some((l) => l.msg === 'cluster: company taken' && l.company === 'c3')
          ? true
          : undefined,
      'c3 to be taken back by wide',
      30_000,
    );
    // what wide says from the moment the epoch is read (a take-back during the send below must be in it)
    const from = wide.logLines().length;
    // read while the lease is in force: a renewal late on a loaded machine leaves it expired for a moment
    const { epoch } = await eventually(
      async () => (await leases()).find((l) => l.company === 'c3' && l.owner === 'wide'),
      'c3 held by wide',
      30_000,
    );
    await sendOnce(COMPANIES[2], 'only-wide.jsonl');
    // and it stays there (no hand-back and take-back loop) while the membership stays the same
    await new Promise((resolve) => setTimeout(resolve, 4 * LEASE_MS));
    const c3 = (await leases()).find((l) => l.company === 'c3');
    const said = wide
      .logLines()
      .slice(from)
      .filter((l) => String(l.msg).startsWith('cluster:'));
    const why = `c3 ${JSON.stringify(c3)} after epoch ${epoch}; wide said: ${JSON.stringify(said)}`;
    expect(
      said.filter(
        (l) => l.msg === 'cluster: handing the company over (fair share)' && l.company === 'c3',
      ),
      why,
    ).toEqual([]);
    expect(c3?.owner, why).toBe('wide');
    // the same lease, unless a renewal came too late on a loaded machine (logged) and wide took c3 again (CI saw epoch + 1 once)
    if (c3?.epoch !== epoch) {
      expect(
        said.some(
          (l) =>
            l.msg === 'cluster: company lost' ||
            String(l.msg).startsWith('cluster: the leases could not be renewed in time'),
        ),
        why,
      ).toBe(true);
    }
    await sendOnce(COMPANIES[0], 'both-know.jsonl');
    await narrow.stop();
    await wide.stop();
  }, 120_000);

  it('the database password (~/.pgpass, PGPASSWORD) reaches no log line, report, status output or application_name', async () => {
    const { server, name } = db();
    const node = await ctx.cluster.node('keyless', { node: 'keyless' });
    const config = parse(await readFile(node.configFile, 'utf8')) as { ledger: { url: string } };
    config.ledger.url = pgUrl(server, name, null);
    await writeFile(node.configFile, stringify(config));
    const pgpass = path.join(node.dir, '.pgpass'); // the node's HOME
    await writeFile(
      pgpass,
      `${server.host}:${server.port}:${name}:${server.user}:${server.password}\n`,
    );
    await chmod(pgpass, 0o600);
    const keyless = await start('keyless', 'keyless');
    await sendOnce(COMPANIES[0], 'secret.jsonl');
    const activity = await adminQuery(
      'SELECT application_name FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    const runs = [
      await runCli(node, ['status']),
      await runCli(node, ['status', '--json']),
      await runCli(node, ['status', '--json'], { env: { PGPASSWORD: server.password } }),
      // a wrong password from the environment: refused, and the message shows neither password
      await runCli(node, ['status'], { env: { PGPASSWORD: `${server.password}-wrong` } }),
    ];
    expect(runs[0].stdout).toContain('keyless');
    expect(runs[3].code, runs[3].stderr).toBe(2);
    await keyless.stop();
    const written = [
      ...(await filesUnder(path.join(node.dir, 'logs'))),
      ...(await filesUnder(path.join(node.dir, 'state'))),
      ...(await filesUnder(path.join(ctx.cluster.shared.dir, 'outbox'))),
      ...(await filesUnder(path.join(ctx.cluster.shared.dir, 'inbox'))),
    ];
    expect(written.length).toBeGreaterThan(2);
    for (const file of written)
      expect(await readFile(file, 'utf8'), file).not.toContain(server.password);
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(server.password);
    expect(keyless.stdout + keyless.stderr).not.toContain(server.password);
    for (const row of activity.rows as { application_name: string }[])
      expect(row.application_name).not.toContain(server.password);
  }, 120_000);

  it("every node's connections cut at once, five times, mid-intake and mid-send: each invoice issued once, nothing left sending", async () => {
    const a = await start('cut-a', 'cut-a');
    const b = await start('cut-b', 'cut-b');
    await eventually(
      async () => (new Set((await leases()).map((l) => l.owner)).size === 2 ? true : undefined),
      'both nodes to hold a company',
    );
    const files = COMPANIES.map((company) => {
      const numbers = Array.from({ length: 400 }, () => ++number);
      return { company, numbers, name: `cut-${company.alias}.jsonl` };
    });
    for (const f of files)
      await ctx.cluster.drop(
        'invoice',
        f.name,
        jsonlText(f.numbers.map((n) => invoice(n, f.company))),
        f.company.alias,
      );
    const issuedNow = async (): Promise<number> =>
      (
        await Promise.all(COMPANIES.map((c) => ctx.emulator.client.issued({ company: c.id })))
      ).reduce((n, list) => n + list.length, 0);
    for (let i = 0; i < 5; i++) {
      const before = await issuedNow();
      await eventually(
        async () => ((await issuedNow()) > before + 20 ? true : undefined),
        'sending to go on',
        60_000,
      );
      await adminQuery(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'edoc-bridge %'",
        [db().name],
      );
    }
    for (const f of files) {
      const result = await ctx.cluster.finalResult('invoice', f.name, f.company.alias, 120_000);
      expect(result.counts.accepted).toBe(f.numbers.length);
      const issued = (
        await ctx.emulator.client.issued({ company: f.company.id, kind: 'invoice' })
      ).map((d) => Number(d.number));
      for (const n of f.numbers)
        expect(
          issued.filter((x) => x === n),
          `invoice ${n} issued once`,
        ).toHaveLength(1);
    }
    expect(
      (
        await ctx.sql.get<{ n: number }>(
          "SELECT count(*) AS n FROM documents WHERE state IN ('sending', 'pending')",
        )
      )?.n,
    ).toBe(0);
    expect([a.running, b.running]).toEqual([true, true]);
    await a.stop();
    await b.stop();
  }, 240_000);

  it('ledger copy into the database a running node uses (no documents yet) is refused; once the node stopped it copies', async () => {
    const target = await createDatabase();
    try {
      const node = await ctx.cluster.node('copy-target', { node: 'copy-target' });
      const config = parse(await readFile(node.configFile, 'utf8')) as { ledger: { url: string } };
      config.ledger.url = target.url;
      await writeFile(node.configFile, stringify(config));
      const running = await start('copy-target', 'copy-target');
      const sourceDir = tempDir('edoc-outsider-copy-');
      await everyStateFolder(sourceDir, { documents: 40, perFile: 10, bodyBytes: 50 });
      const run = await runCli(
        { dir: sourceDir },
        ['ledger', 'copy', '--from', sourceDir, '--to', target.url],
        { timeoutMs: 60_000 },
      );
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr).toContain('EDOC_LEDGER_COPY_REFUSED');
      expect(running.running).toBe(true);
      await running.stop();
      // stopped (SIGTERM marks the node stopped), the same copy goes through
      const after = await runCli(
        { dir: sourceDir },
        ['ledger', 'copy', '--from', sourceDir, '--to', target.url],
        { timeoutMs: 60_000 },
      );
      expect(after.code, after.stdout + after.stderr).toBe(0);
    } finally {
      await target.drop();
    }
  }, 120_000);
});
