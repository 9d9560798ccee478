import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendFile,
  mkdir,
  rename,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { InboxWatcher } from '../../src/watch/inbox-watcher.js';
import {
  collect,
  recordingLogger,
  removeDir,
  sleep,
  tempDir,
  waitForLine,
} from './watch-helpers.js';

const STABLE_MS = 200;

for (const usePolling of [false, true]) {
  describe(`inbox watcher (${usePolling ? 'polling' : 'fs events'})`, () => {
    let root: string;
    let inbox: string;
    let watcher: InboxWatcher;
    let logger: ReturnType<typeof recordingLogger>;

    beforeEach(async () => {
      root = await tempDir();
      inbox = path.join(root, 'inbox', 'invoice');
      logger = recordingLogger();
      watcher = new InboxWatcher({
        folders: [{ dir: inbox, kind: 'invoice', company: 'main' }],
        stableMs: STABLE_MS,
        usePolling,
        logger,
      });
    });

    afterEach(async () => {
      await watcher.close();
      await removeDir(root);
    });

    it('creates a missing inbox folder at start', async () => {
      await watcher.start();
      expect((await stat(inbox)).isDirectory()).toBe(true);
    });

    it('hands a file out again when its intake begun after it was handed out is dropped as changed, whatever its identity', async () => {
      await watcher.start();
      const ready = collect(watcher.files());
      const file = path.join(inbox, 'otra.jsonl');
      const before = Date.now() - 1;
      // whole seconds: utimes sets them again exactly
      const mtime = new Date('2026-11-20T12:00:00Z');
      await writeFile(file, '{"n":1}\n');
      await utimes(file, mtime, mtime);
      await ready.waitFor(1);
      // an intake begun before the file was handed out: not this one's, nothing happens
      watcher.again(file, before);
      await sleep(STABLE_MS * 3);
      expect(ready.got).toHaveLength(1);
      // unchanged since (as a rewrite that kept inode, size and mtime looks): no event brings it back, the
      // dropped intake does (a rewrite in place may show a moment's other size to the watcher: not waited for)
      const intakeBegun = Date.now();
      watcher.again(file, intakeBegun);
      await ready.waitFor(2);
      expect(ready.got[1].at - intakeBegun).toBeGreaterThanOrEqual(STABLE_MS);
      expect(ready.got[1].file).toMatchObject({ path: file, via: 'stable', size: 8 });
      await sleep(STABLE_MS * 3);
      expect(ready.got).toHaveLength(2);
    });

    it('takes a file written slowly in chunks once, only after it stopped changing', async () => {
      // a longer stableMs than the pauses between chunks, with room for a loaded machine
      const slowMs = 600;
      await watcher.close();
      watcher = new InboxWatcher({
        folders: [{ dir: inbox, kind: 'invoice', company: 'main' }],
        stableMs: slowMs,
        usePolling,
      });
      await watcher.start();
      const ready = collect(watcher.files());
      const file = path.join(inbox, 'slow.json');
      await writeFile(file, '[');
      for (let i = 0; i < 8; i++) {
        await sleep(100);
        await appendFile(file, `{"n":${i}},`);
      }
      await appendFile(file, '{"n":99}]');
      const lastWrite = Date.now();
      expect(ready.got).toHaveLength(0);
      await ready.waitFor(1);
      await sleep(slowMs * 2);
      expect(ready.got).toHaveLength(1);
      const [{ file: got, at }] = ready.got;
      expect(at - lastWrite).toBeGreaterThanOrEqual(slowMs);
      expect(got).toMatchObject({ path: file, kind: 'invoice', company: 'main', via: 'stable' });
      expect(got.size).toBe((await stat(file)).size);
    });

    it('takes a file renamed in from x.json.part well before stableMs', async () => {
      const slowLogger = recordingLogger();
      const slow = new InboxWatcher({
        folders: [{ dir: inbox, kind: 'invoice', company: 'main' }],
        stableMs: 5000,
        usePolling,
        logger: slowLogger,
      });
      try {
        await slow.start();
        const ready = collect(slow.files());
        await writeFile(path.join(inbox, 'x.json.part'), '{"a":1}');
        // an exporter renames after writing for a while; here: once the watcher saw the staging file
        await waitForLine(slowLogger, 'staging file seen', 'x.json.part');
        const renamedAt = Date.now();
        await rename(path.join(inbox, 'x.json.part'), path.join(inbox, 'x.json'));
        await ready.waitFor(1, 4000);
        expect(ready.got[0].file).toMatchObject({
          path: path.join(inbox, 'x.json'),
          via: 'rename',
        });
        expect(ready.got[0].at - renamedAt).toBeLessThan(2500);
      } finally {
        await slow.close();
      }
    });

    // chokidar's folder poll re-reads a folder only when its mtime grew: on a share with coarse mtimes
    // a file created in the same tick as the last poll (or before the poll's first stat) is never
    // reported by it. Pinning the folder's mtime back reproduces that here.
    if (usePolling)
      it("takes files that chokidar's folder poll cannot see (the folder mtime did not move)", async () => {
        await watcher.start();
        const ready = collect(watcher.files());
        await sleep(STABLE_MS * 3);
        const pinned = await stat(inbox);
        const first = path.join(inbox, 'same-tick.json');
        await writeFile(first, '{"n":1}');
        await utimes(inbox, pinned.atime, pinned.mtime);
        await ready.waitFor(1, 5000);
        expect(ready.got[0].file).toMatchObject({ path: first, via: 'stable' });
        // taken, archived away and dropped again under the same name, all unseen by chokidar's poll
        await rename(first, path.join(root, 'archived.json'));
        await sleep(STABLE_MS * 3);
        await writeFile(first, '{"n":2}');
        await utimes(inbox, pinned.atime, pinned.mtime);
        await ready.waitFor(2, 5000);
        expect(ready.got[1].file).toMatchObject({ path: first, via: 'stable', size: 7 });
      });

    // With fs events only: polling sees a staging name only if it lasts one poll interval (docs/configuration.md).
    if (!usePolling)
      it('takes files renamed in from .part at once also when the rename follows the write immediately', async () => {
        const slow = new InboxWatcher({
          folders: [{ dir: inbox, kind: 'invoice', company: 'main' }],
          stableMs: 5000,
          usePolling,
        });
        try {
          await slow.start();
          const ready = collect(slow.files());
          const renamedAt: number[] = [];
          for (let i = 0; i < 10; i++) {
            const target = path.join(inbox, `fast-${i}.json`);
            await writeFile(`${target}.part`, `{"n":${i}}`);
            await rename(`${target}.part`, target); // no pause: the staging name may never be stat-able
            renamedAt.push(Date.now());
            await sleep(50);
          }
          await ready.waitFor(10, 4000);
          for (const got of ready.got) {
            const i = Number(/fast-(\d+)/.exec(got.file.path)?.[1]);
            expect(got.file.via).toBe('rename');
            expect(got.at - (renamedAt[i] ?? 0)).toBeLessThan(2500);
          }
        } finally {
          await slow.close();
        }
      });

    it('ignores hidden files, *.part and *.tmp', async () => {
      await watcher.start();
      const ready = collect(watcher.files());
      await writeFile(path.join(inbox, '.hidden.json'), '{}');
      await writeFile(path.join(inbox, 'a.json.part'), '{}');
      await writeFile(path.join(inbox, 'b.TMP'), '{}');
      await writeFile(path.join(inbox, 'real.json'), '{}');
      await ready.waitFor(1);
      await sleep(STABLE_MS * 4);
      expect(ready.got.map((g) => path.basename(g.file.path))).toEqual(['real.json']);
    });

    it('skips a directory and a symbolic link with one warning each and no event', async () => {
      await mkdir(inbox, { recursive: true });
      await writeFile(path.join(root, 'target.json'), '{}');
      await watcher.start();
      const ready = collect(watcher.files());
      await mkdir(path.join(inbox, 'sub'));
      await writeFile(path.join(inbox, 'sub', 'inner.json'), '{}');
      await symlink(path.join(root, 'target.json'), path.join(inbox, 'link.json'));
      await writeFile(path.join(inbox, 'after.json'), '{}');
      await ready.waitFor(1);
      await sleep(STABLE_MS * 4);
      expect(ready.got.map((g) => path.basename(g.file.path))).toEqual(['after.json']);
      const warnings = logger.lines.filter((l) => l.level === 'warn');
      expect(warnings.map((w) => path.basename(String(w.obj.file))).sort()).toEqual([
        'link.json',
        'sub',
      ]);
      expect(warnings.map((w) => w.obj.type).sort()).toEqual(['directory', 'symbolic link']);
    });

    it('takes files present at start only after they are stable', async () => {
      await mkdir(inbox, { recursive: true });
      await writeFile(path.join(inbox, 'old-1.json'), '{}');
      await writeFile(path.join(inbox, 'old-2.jsonl'), '{}\n');
      const startedAt = Date.now();
      await watcher.start();
      const ready = collect(watcher.files());
      await ready.waitFor(2);
      expect(ready.got.map((g) => path.basename(g.file.path)).sort()).toEqual([
        'old-1.json',
        'old-2.jsonl',
      ]);
      for (const g of ready.got) expect(g.at - startedAt).toBeGreaterThanOrEqual(STABLE_MS);
    });

    it('takes a re-drop of the same name again after the first was removed', async () => {
      await watcher.start();
      const ready = collect(watcher.files());
      const file = path.join(inbox, 'same.json');
      await writeFile(file, '{"first":true}');
      await ready.waitFor(1);
      await unlink(file);
      await sleep(STABLE_MS * 2);
      await writeFile(file, '{"second":true}');
      await ready.waitFor(2);
      await sleep(STABLE_MS * 3);
      expect(ready.got).toHaveLength(2);
      expect(ready.got.every((g) => g.file.path === file)).toBe(true);
    });

    it('does not hand out the same content twice', async () => {
      await watcher.start();
      const ready = collect(watcher.files());
      const file = path.join(inbox, 'once.json');
      await writeFile(file, '{}');
      await ready.waitFor(1);
      await sleep(STABLE_MS * 4);
      expect(ready.got).toHaveLength(1);
    });

    it('close() can be called twice and ends files()', async () => {
      await watcher.start();
      const iterator = watcher.files();
      const next = iterator.next();
      await watcher.close();
      await watcher.close();
      expect((await next).done).toBe(true);
    });
  });
}

describe('inbox watcher with several folders', () => {
  it('tags each file with the kind and company of its folder and ignores archive subfolders', async () => {
    const root = await tempDir();
    const a = path.join(root, 'inbox', 'main', 'invoice');
    const b = path.join(root, 'inbox', 'other', 'payroll');
    const watcher = new InboxWatcher({
      folders: [
        { dir: a, kind: 'invoice', company: 'main' },
        { dir: b, kind: 'payroll', company: 'other' },
      ],
      stableMs: STABLE_MS,
      usePolling: false,
    });
    try {
      await watcher.start();
      const ready = collect(watcher.files());
      await writeFile(path.join(a, 'a.json'), '{}');
      await writeFile(path.join(b, 'b.jsonl'), '{}\n');
      await ready.waitFor(2);
      const byName = Object.fromEntries(ready.got.map((g) => [path.basename(g.file.path), g.file]));
      expect(byName['a.json']).toMatchObject({ kind: 'invoice', company: 'main' });
      expect(byName['b.jsonl']).toMatchObject({ kind: 'payroll', company: 'other' });
    } finally {
      await watcher.close();
      await removeDir(root);
    }
  });
});

describe('inbox watcher on a symlinked inbox folder', () => {
  it('watches the folder the link points to and reports paths under the configured name', async () => {
    const root = await tempDir();
    const real = path.join(root, 'share', 'invoice');
    await mkdir(real, { recursive: true });
    const linked = path.join(root, 'inbox-link');
    await symlink(real, linked);
    const watcher = new InboxWatcher({
      folders: [{ dir: linked, kind: 'invoice', company: 'main' }],
      stableMs: STABLE_MS,
    });
    try {
      await watcher.start();
      const ready = collect(watcher.files());
      await writeFile(path.join(real, 'a.json'), '{}');
      await ready.waitFor(1);
      expect(ready.got[0].file.path).toBe(path.join(linked, 'a.json'));
    } finally {
      await watcher.close();
      await removeDir(root);
    }
  });
});
