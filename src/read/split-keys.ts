/**
 * The key pass of csv-source.ts: each document key's last row (LastRowTable), and one document written
 * under two keys. With key alternatives (`[[prefijo, numero], [prefijo, ticket]]`) a row takes the first
 * alternative it fills: a sale whose number is on some of its rows only becomes two documents, `POS 101`
 * with the rows that carry the number and one the service numbers with the others, each issued short of
 * the other's lines. The pass notes every later alternative a keyed row fills too (`aliases`: that key ->
 * its row); a document keyed by such a key, and the document whose rows carry it, are both refused
 * (EDOC_MAP_INCONSISTENT), naming the other's row and the key's columns.
 */
import type { RowView } from '../map/eval-context.js';
import type { Problem } from '../validate/problem.js';
import type { FramedRow, RowFramer } from './csv-framing.js';
import { LastRowTable } from './csv-last-rows.js';

export class KeyPass {
  private readonly lastRows = new LastRowTable();
  private readonly aliases = new LastRowTable(16);

  constructor(
    private readonly framer: RowFramer,
    private readonly indexOf: (column: string) => number,
  ) {}

  /** A framed row of the key pass, at its row. */
  note(framed: FramedRow, row: number): void {
    this.lastRows.set(framed.key, row);
    const { cells } = framed;
    const get = (column: string): string => cells[this.indexOf(column)] ?? '';
    for (const later of this.framer.laterKeys(framed.key, get)) this.aliases.set(later, row);
  }

  /** The last row of a document key, undefined for a key the pass did not see. */
  lastRow(key: string): number | undefined {
    return this.lastRows.get(key);
  }

  /** The document, with the problem of its being written under two keys among its `undecided` ones. */
  marked<D extends { key: string; rows: RowView[]; undecided?: Problem[] }>(doc: D): D {
    const rows = doc.rows.map((r) => r.row);
    const carried = this.aliases.get(doc.key);
    if (carried !== undefined) {
      (doc.undecided ??= []).unshift(split(rows, this.framer.describeKey(doc.key), carried));
      return doc;
    }
    for (const row of doc.rows)
      for (const later of this.framer.laterKeys(doc.key, row.get)) {
        const other = this.lastRows.get(later);
        if (other === undefined) continue;
        (doc.undecided ??= []).unshift(split(rows, this.framer.describeKey(later), other));
        return doc;
      }
    return doc;
  }
}

function split(rows: number[], key: string, otherRow: number): Problem {
  return {
    code: 'EDOC_MAP_INCONSISTENT',
    path: '',
    column: key.slice(0, key.indexOf(' (')),
    value: key,
    rows,
    message: `${rows.length === 1 ? 'Row' : 'Rows'} ${rows.join(', ')} and row ${otherRow} carry the same ${key} but fall under different document keys (a key column filled on some rows of the document only): issued, they would be two documents, each without the other's lines; neither is sent: fill the document's key columns alike on all of its rows`,
  };
}
