import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
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

describe('inbox watcher: renames, content and back-pressure', () => {
  let root: string;
  let inbox: string;
  let watcher: InboxWatcher;

  beforeEach(async () => {
    root = await tempDir();
    inbox = path.join(root, 'inbox');
    await mkdir(inbox);
    watcher = new InboxWatcher({
      folders: [{ dir: inbox, kind: 'pos', company: 'main' }],
      stableMs: STABLE_MS,
    });
    await watcher.start();
  });

  afterEach(async () => {
    await watcher.close();
    await removeDir(root);
  });

  it('takes a file renamed from a .tmp staging file of another name at once', async () => {
    const slowLogger = recordingLogger();
    const slow = new InboxWatcher({
      folders: [{ dir: inbox, kind: 'pos', company: 'main' }],
      stableMs: 5000,
      logger: slowLogger,
    });
    try {
      await slow.start();
      const ready = collect(slow.files());
      await writeFile(path.join(inbox, 'export-123.tmp'), '{"a":1}\n');
      await waitForLine(slowLogger, 'staging file seen', 'export-123.tmp');
      const renamedAt = Date.now();
      await rename(path.join(inbox, 'export-123.tmp'), path.join(inbox, 'sales.jsonl'));
      await ready.waitFor(1, 4000);
      expect(ready.got[0].file).toMatchObject({
        path: path.join(inbox, 'sales.jsonl'),
        via: 'rename',
      });
      expect(ready.got[0].at - renamedAt).toBeLessThan(2500);
    } finally {
      await slow.close();
    }
  });

  it('does not take a new file early when it reuses the inode of a deleted staging file', async () => {
    const slowMs = 600;
    await watcher.close();
    const logger = recordingLogger();
    watcher = new InboxWatcher({
      folders: [{ dir: inbox, kind: 'pos', company: 'main' }],
      stableMs: slowMs,
      logger,
    });
    await watcher.start();
    const ready = collect(watcher.files());
    await writeFile(path.join(inbox, 'aborted.json.part'), '{"a":1}');
    await waitForLine(logger, 'staging file seen', 'aborted.json.part');
    await unlink(path.join(inbox, 'aborted.json.part'));
    const file = path.join(inbox, 'other.json');
    await writeFile(file, '[');
    for (let i = 0; i < 6; i++) {
      await sleep(100);
      await appendFile(file, `{"n":${i}},`);
    }
    await appendFile(file, '{}]');
    const lastWrite = Date.now();
    await ready.waitFor(1);
    expect(ready.got[0].file.via).toBe('stable');
    expect(ready.got[0].at - lastWrite).toBeGreaterThanOrEqual(slowMs);
  });

  it('takes a file again when it is rewritten in place with new content', async () => {
    const ready = collect(watcher.files());
    const file = path.join(inbox, 'rewrite.json');
    await writeFile(file, '{"v":1}');
    await ready.waitFor(1);
    await writeFile(file, '{"v":22}');
    await ready.waitFor(2);
    expect(ready.got.map((g) => g.file.size)).toEqual([7, 8]);
  });

  it('keeps ready files waiting until the consumer pulls them', async () => {
    for (const name of ['a.json', 'b.json', 'c.json'])
      await writeFile(path.join(inbox, name), '{}');
    const deadline = Date.now() + 10_000;
    while (watcher.waiting < 3 && Date.now() < deadline) await sleep(20);
    expect(watcher.waiting).toBe(3);
    const iterator = watcher.files();
    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push(path.basename((await iterator.next()).value.path));
    expect(names.sort()).toEqual(['a.json', 'b.json', 'c.json']);
    expect(watcher.waiting).toBe(0);
  });

  it('withdraws a waiting file that is removed before it was pulled', async () => {
    const file = path.join(inbox, 'removed.json');
    await writeFile(file, '{}');
    const deadline = Date.now() + 10_000;
    while (watcher.waiting < 1 && Date.now() < deadline) await sleep(20);
    await unlink(file);
    while (watcher.waiting > 0 && Date.now() < deadline) await sleep(20);
    expect(watcher.waiting).toBe(0);
  });

  it('hands out each of 300 files dropped at once exactly once', async () => {
    const ready = collect(watcher.files());
    const names = Array.from({ length: 300 }, (_, i) => `bulk-${String(i).padStart(3, '0')}.jsonl`);
    await Promise.all(names.map((name) => writeFile(path.join(inbox, name), `{"n":"${name}"}\n`)));
    await ready.waitFor(300, 20_000);
    await sleep(STABLE_MS * 3);
    expect(ready.got.map((g) => path.basename(g.file.path)).sort()).toEqual(names);
  });
});
