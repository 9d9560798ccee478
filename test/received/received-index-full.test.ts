/**
 * received.csv on a real nearly full disk (a tmpfs, as root): a row longer than the room left is
 * written by the kernel in part without an error. The append must fail with the file as it was,
 * and the row be appended whole once space returns.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexFields, receivedNames } from '../../src/received/received-files.js';
import { ReceivedIndex } from '../../src/received/received-index.js';
import { mountSupport, SmallDisk } from '../helpers/small-disk.js';
import { readIndex } from './helpers.js';

const support = mountSupport();
const disks: SmallDisk[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) {
    d.free();
    d.unmount();
    fs.rmSync(d.dir, { recursive: true, force: true });
  }
});

describe.skipIf(!support.ok)('received.csv on a nearly full disk', () => {
  it('a row the disk has no room for is not left torn; it is appended whole when space returns', async () => {
    const disk = SmallDisk.mount(fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-index-disk-')), 1);
    disks.push(disk);
    const dir = path.join(disk.dir, 'received');
    fs.mkdirSync(dir);
    const index = await ReceivedIndex.open(dir);
    const fields = (cufe: string, providerName: string) => {
      const record = { cufe, documentNumber: `N${cufe}`, documentDate: '2026-11-03', providerName };
      return indexFields(record, receivedNames(record), false, '');
    };
    await index.append(fields('aaa', 'Proveedor SAS'));
    const before = fs.readFileSync(path.join(dir, 'received.csv'));
    // 4 KiB left; a row of about 20 KiB (a long provider name)
    disk.fill(4_096);
    const long = 'Proveedor '.repeat(2_000);
    await expect(index.append(fields('bbb', long))).rejects.toThrow(/ENOSPC/);
    expect(fs.readFileSync(path.join(dir, 'received.csv'))).toEqual(before);
    disk.free();
    const again = await index.refreshed();
    expect(await again.append(fields('bbb', long))).toBe(true);
    expect(readIndex(dir).rows.map((r) => r.cufe)).toEqual(['aaa', 'bbb']);
  });
});
