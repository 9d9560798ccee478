/**
 * A table's content checksum, computed the same way over the rows read from SQLite and over the rows
 * read back from PostgreSQL: each row is hashed (SHA-256 of its values, each as bytes with its length,
 * NULL marked apart from ''), and the row hashes are added up modulo 2^256. The sum does not depend on
 * the order rows come back in — so PostgreSQL can stream a table in whatever order is cheapest, and
 * text keys need no agreement between SQLite's byte order and the database's collation — while a
 * missing, extra, repeated or altered row changes it (with the row count beside it, a changed row
 * would have to collide in SHA-256).
 */
import { createHash } from 'node:crypto';

const MOD = (1n << 256n) - 1n;
const NULL_MARK = Buffer.from([0]);
const VALUE_MARK = 0x01;

export class TableChecksum {
  private sum = 0n;
  rows = 0;

  /**
   * One row: its values in the plan's column order, each the bytes that stand for it (a text's UTF-8,
   * an integer's decimal digits) or null.
   */
  add(values: readonly (Buffer | null)[]): void {
    const hash = createHash('sha256');
    const head = Buffer.alloc(5);
    for (const value of values) {
      if (value === null) {
        hash.update(NULL_MARK);
        continue;
      }
      head[0] = VALUE_MARK;
      head.writeUInt32BE(value.length, 1);
      hash.update(head);
      hash.update(value);
    }
    this.sum = (this.sum + BigInt(`0x${hash.digest('hex')}`)) & MOD;
    this.rows++;
  }

  /** The checksum as 64 hex digits. */
  hex(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}
