/**
 * Issue 12 item 4 through the real daemon and the real `submit` command: no drop overwrites the
 * report of another file's outcome. The same content dropped again gets its own report naming the
 * earlier one; the same name with new content (a daily name) takes the outbox names over only after
 * the earlier report set moved, byte for byte, to the archive beside its original.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, eventually, type Project, type ResultJson } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

/** Every file of a folder (not sub-folders) with its bytes. */
async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) out.set(e.name, await readFile(path.join(dir, e.name)));
  }
  return out;
}

async function readJson(
  file: string,
): Promise<ResultJson & { duplicateOf?: Record<string, unknown> }> {
  return JSON.parse(await readFile(file, 'utf8')) as ResultJson & {
    duplicateOf?: Record<string, unknown>;
  };
}

async function finalAt(
  file: string,
): Promise<ResultJson & { duplicateOf?: Record<string, unknown> }> {
  return eventually(
    async () => {
      if (!existsSync(file)) return undefined;
      const r = await readJson(file).catch(() => undefined);
      return r !== undefined && r.finishedAt !== null ? r : undefined;
    },
    `final ${file}`,
    30_000,
  );
}

/** The original is in the archive and gone from the inbox (the move links first, then unlinks). */
async function archivedOriginal(p: Project, name: string, inboxName = name): Promise<void> {
  await eventually(
    () =>
      existsSync(path.join(p.outbox('invoice'), 'archive', name)) &&
      !existsSync(path.join(p.inbox('invoice'), inboxName))
        ? true
        : undefined,
    `archive/${name}`,
  );
}

describe("outbox reports are never overwritten by another file's (daemon)", () => {
  test('the same content and name again: the earlier report set stays byte for byte; the duplicate gets NAME (2) naming the earlier', async ({
    daemonProject,
  }) => {
    const { emulator, project: p, startDaemon } = await daemonProject();
    const daemon = await startDaemon();
    try {
      const outbox = p.outbox('invoice');
      // one accepted and one refused (outside every range: invalid, not sent): result.json, errors.csv and the retry file all exist
      const content = jsonText([invoice(990_200_001), invoice(17)]);
      await p.drop('invoice', 'ventas.json', content);
      const first = await p.finalResult('invoice', 'ventas.json');
      expect(first.counts).toMatchObject({ total: 2, accepted: 1, invalid: 1 });
      await archivedOriginal(p, 'ventas.json');
      const before = await snapshot(outbox);
      expect([...before.keys()].sort()).toEqual([
        'ventas.errors.csv',
        'ventas.result.json',
        'ventas.retry.json',
      ]);

      await p.drop('invoice', 'ventas.json', content);
      const dup = await finalAt(path.join(outbox, 'ventas (2).result.json'));
      await archivedOriginal(p, 'ventas (2).json', 'ventas.json');
      expect(dup.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
      expect(dup.error?.message).toContain('ventas.json');
      expect(dup.error?.message).toContain('ventas.result.json');
      expect(dup.error?.message).toContain(first.startedAt);
      expect(dup.duplicateOf).toEqual({
        file: 'ventas.json',
        result: 'ventas.result.json',
        startedAt: first.startedAt,
        finishedAt: first.finishedAt,
      });
      expect(dup.counts.total).toBe(0);
      expect(dup.sha256).toBe(first.sha256);

      const after = await snapshot(outbox);
      for (const [name, bytes] of before)
        expect(after.get(name)?.equals(bytes), `${name} untouched`).toBe(true);
      expect([...after.keys()].sort()).toEqual([
        'ventas (2).errors.csv',
        'ventas (2).result.json',
        'ventas.errors.csv',
        'ventas.result.json',
        'ventas.retry.json',
      ]);
      // both originals kept: the duplicate's archived under its own name
      const archive = await snapshot(path.join(outbox, 'archive'));
      expect(archive.get('ventas.json')?.toString()).toBe(content);
      expect(archive.get('ventas (2).json')?.toString()).toBe(content);
      expect(
        (await emulator.client.documents()).filter((d) => d.documentNumber === 'SETP990200001'),
      ).toHaveLength(1);
    } finally {
      await daemon.stop();
    }
  });

  test('the same name with new content: the earlier report set moves to archive/ beside its original, byte for byte; a restart changes nothing', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject();
    let daemon = await startDaemon();
    const outbox = p.outbox('invoice');
    try {
      await p.drop('invoice', 'diario.json', jsonText([invoice(990_200_011), invoice(18)]));
      const first = await p.finalResult('invoice', 'diario.json');
      await archivedOriginal(p, 'diario.json');
      const earlier = await snapshot(outbox);
      expect([...earlier.keys()].sort()).toEqual([
        'diario.errors.csv',
        'diario.result.json',
        'diario.retry.json',
      ]);

      await p.drop('invoice', 'diario.json', jsonText([invoice(990_200_012)]));
      const second = await eventually(async () => {
        const r = await p.result('invoice', 'diario.json');
        return r !== undefined && r.sha256 !== first.sha256 && r.finishedAt !== null
          ? r
          : undefined;
      }, 'the new diario.result.json');
      expect(second.counts).toMatchObject({ total: 1, accepted: 1 });
      await archivedOriginal(p, 'diario (2).json', 'diario.json');
      // the new file's report took the names; nothing of the earlier is left under them
      const now = await snapshot(outbox);
      expect([...now.keys()].sort()).toEqual(['diario.result.json']);
      const archive = await snapshot(path.join(outbox, 'archive'));
      expect(
        archive.get('diario.json.result.json')?.equals(earlier.get('diario.result.json') as Buffer),
      ).toBe(true);
      expect(
        archive.get('diario.json.errors.csv')?.equals(earlier.get('diario.errors.csv') as Buffer),
      ).toBe(true);
      expect(
        archive.get('diario.json.retry.json')?.equals(earlier.get('diario.retry.json') as Buffer),
      ).toBe(true);
      expect(JSON.parse(archive.get('diario.json.result.json')?.toString() ?? '{}')).toMatchObject({
        sha256: first.sha256,
      });
      const moved = p.ledgerQuery<{ report_dir: string; report_name: string }>(
        'SELECT report_dir, report_name FROM files WHERE sha256 = ?',
        first.sha256,
      );
      expect(moved).toEqual([
        { report_dir: path.join(outbox, 'archive'), report_name: 'diario.json' },
      ]);

      // a restart rebuilds nothing twice and moves nothing again
      await daemon.stop();
      daemon = await startDaemon();
      await daemon.stop();
      expect([...(await snapshot(outbox)).entries()]).toEqual([...now.entries()]);
      expect([...(await snapshot(path.join(outbox, 'archive'))).entries()]).toEqual([
        ...archive.entries(),
      ]);
    } finally {
      await daemon.stop();
    }
  });
});

describe("outbox reports are never overwritten by another file's (edoc-bridge submit)", () => {
  test('the same content from another folder gets NAME (2); an edited file under the same path moves the earlier report aside', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const outbox = p.outbox('invoice');
    const write = async (dir: string, content: string): Promise<string> => {
      await mkdir(path.join(p.dir, dir), { recursive: true });
      const file = path.join(p.dir, dir, 'lote.json');
      await writeFile(file, content);
      return file;
    };
    const content = jsonText([invoice(990_200_021)]);
    const file = await write('exports', content);
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(0);
    const earlier = await snapshot(outbox);
    expect([...earlier.keys()]).toEqual(['lote.result.json']);

    const copy = await write('exports-copy', content);
    const dupRun = await runCli(p, ['submit', copy, '--kind', 'invoice']);
    expect(dupRun.stdout).toContain('lote (2).result.json');
    const dup = await readJson(path.join(outbox, 'lote (2).result.json'));
    expect(dup.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
    expect(dup.duplicateOf).toMatchObject({ file: 'lote.json', result: 'lote.result.json' });
    expect(
      (await readFile(path.join(outbox, 'lote.result.json'))).equals(
        earlier.get('lote.result.json') as Buffer,
      ),
    ).toBe(true);

    await write('exports', jsonText([invoice(990_200_022)]));
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(0);
    const now = await readJson(path.join(outbox, 'lote.result.json'));
    expect(now.documents.map((d) => d.key)).toEqual(['main/invoice/SETP/990200022']);
    // the foreground path writes the same result.json: what was issued is there as data
    expect((now.documents[0] as { issued?: unknown }).issued).toEqual({
      prefix: 'SETP',
      number: '990200022',
      numberedBy: 'erp',
    });
    // not archived by submit: the earlier report set is kept under its name and finishing time
    const archive = await snapshot(path.join(outbox, 'archive'));
    const kept = [...archive.keys()];
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^lote\.\d{8}T\d{6}Z\.result\.json$/);
    expect(archive.get(kept[0])?.equals(earlier.get('lote.result.json') as Buffer)).toBe(true);
  });
});
