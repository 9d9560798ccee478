/**
 * The same export taken for two companies at once (two folders, two nodes or two connections of one):
 * the copy recorded second is held (EDOC_LEDGER_OTHER_COMPANY), and "second" must be what the other's
 * reads can see. Here company a's recording stalls after its row is inserted (its id given, its commit
 * not yet made: a frozen node, a slow fence) while company b's copy is recorded and stored. On
 * PostgreSQL the recordings of one content take turns (record-file.ts), so b's waits for a's commit.
 */
import { expect, it } from 'vitest';
import type { LedgerFence } from '../../src/ledger/port.js';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

const SHA = 'same-export';

describeBackends('one export recorded for two companies at once', ({ open }) => {
  it('one copy is held, whichever recording commits first', async () => {
    let release = (): void => undefined;
    const stalled = new Promise<void>((r) => (release = r));
    const fence: LedgerFence = {
      check: async () => undefined,
      // called after the file's row is inserted, before the transaction commits
      claimFile: async (_tx, file) => {
        if (file.company === 'a') await stalled;
      },
    };
    const ledger = await open({ fence });
    const input = (company: string) =>
      fileInput({ company, sha256: SHA, path: `/inbox/${company}/invoice/x.json`, name: 'x.json' });
    const a = ledger.recordFile(input('a'));
    await new Promise((r) => setTimeout(r, 100));
    const b = ledger.recordFile(input('b'));
    const held = new Map<string, number>();
    const store = async (company: string, fileId: number): Promise<void> => {
      const result = await ledger.insertDocuments(fileId, docs(2), 1_000);
      held.set(company, result.heldForOtherCompany?.count ?? 0);
    };
    // b stores its documents as soon as its recording returns, while a's may still be stalled
    const bStored = b.then((r) => store('b', r.fileId));
    await Promise.race([bStored, new Promise((r) => setTimeout(r, 500))]);
    release();
    await store('a', (await a).fileId);
    await bStored;
    expect([...held.values()].sort()).toEqual([0, 2]);
    await ledger.close();
  });
});
