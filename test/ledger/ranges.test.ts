/**
 * The ledger reads of the range watch and the alerts, on a real SQLite and a real PostgreSQL ledger: the highest number of a
 * prefix used within a range, whatever the lengths of the numbers beside it; in-doubt and unsent counts.
 */
import { describe, expect, test } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { describeBackends } from './backends.js';
import { RANGE_KINDS } from '../../src/ranges/range-math.js';
import { docs, fileInput } from './helpers.js';

describeBackends('the range watch and alert reads', ({ open }) => {
  async function ledgerWith(
    numbers: readonly string[],
    invalid: readonly string[] = [],
    kind: 'invoice' | 'credit-note' = 'invoice',
  ): Promise<Ledger> {
    const ledger = await open();
    const { fileId } = await ledger.recordFile(fileInput({ kind }));
    const all = [...numbers, ...invalid];
    await ledger.insertDocuments(
      fileId,
      docs(all.length, (i) => ({
        number: all[i],
        ...(i >= numbers.length
          ? { problems: [{ code: 'EDOC_VALIDATE_OUT_OF_RANGE', message: 'outside' }] }
          : {}),
      })),
    );
    return ledger;
  }

  describe('highestNumberUsed', () => {
    test('numbers of many lengths under one prefix: the highest within [from, to], never one outside it', async () => {
      const used = [
        'FE/7',
        'FE/42',
        'FE/999',
        'FE/1000',
        'FE/4999',
        'FE/5000',
        'FE/5001',
        'FE/12345',
        'FE/99',
        'FE/990000001',
      ];
      // plenty of longer numbers above a range of short ones: each jump skips a group
      for (let i = 0; i < 3_000; i++) used.push(`FE/${990_000_100 + i}`);
      const ledger = await ledgerWith(used, ['FE/4998', 'FE/50']);
      const high = (from: number, to: number) =>
        ledger.highestNumberUsed('main', RANGE_KINDS, 'FE', from, to);
      expect(await high(1, 5000)).toBe(5000);
      expect(await high(1, 4999)).toBe(4999);
      expect(await high(1, 998)).toBe(99);
      expect(await high(100, 998)).toBeUndefined();
      expect(await high(1, 60)).toBe(42); // FE 50 was refused (invalid): it used no number
      expect(await high(5002, 12344)).toBeUndefined();
      expect(await high(1, 999_999)).toBe(12345);
      expect(await high(990_000_000, 995_000_000)).toBe(990_003_099);
      expect(await high(1, 9)).toBe(7);
      expect(await ledger.highestNumberUsed('main', RANGE_KINDS, 'NC', 1, 5000)).toBeUndefined();
      expect(await ledger.highestNumberUsed('other', RANGE_KINDS, 'FE', 1, 5000)).toBeUndefined();
    });

    test('a refused number on top is stepped over; another kind of the same prefix counts', async () => {
      const ledger = await ledgerWith(['NC/10', 'NC/11'], ['NC/12'], 'credit-note');
      expect(await ledger.highestNumberUsed('main', RANGE_KINDS, 'NC', 1, 100)).toBe(11);
      expect(await ledger.highestNumberUsed('main', ['invoice'], 'NC', 1, 100)).toBeUndefined();
    });
  });

  describe('openCounts', () => {
    test('in doubt per company, and unsent only when asked', async () => {
      const ledger = await ledgerWith(['FE/1', 'FE/2', 'FE/3']);
      await ledger.finishReading(1);
      await ledger.setInDoubt([1], 'no-answer');
      expect(await ledger.openCounts(false)).toEqual([{ company: 'main', inDoubt: 1, unsent: 0 }]);
      expect(await ledger.openCounts(true)).toEqual([{ company: 'main', inDoubt: 1, unsent: 2 }]);
    });
  });
});
