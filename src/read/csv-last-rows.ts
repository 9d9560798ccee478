/**
 * Key -> last row, for pass 1 of the CSV reader, in flat typed arrays: a
 * 64-bit hash of the key (two 32-bit FNV-1a lanes with different seeds) and the
 * row, open addressing at most 75% full. Under 24 bytes per distinct key, so a million
 * documents cost ~24 MB instead of the ~100 MB of a Map<string, number>.
 *
 * Two keys with the same hash share an entry holding the later row; that only
 * delays the end of the earlier document to that row, it never cuts one short.
 */
export function hashKey(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < key.length; i += 1) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b | 1) >>> 0];
}

export class LastRowTable {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private rows: Uint32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1024) {
    let cap = 1;
    while (cap < initialCapacity) cap *= 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.rows = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  private slot(h: number, l: number): number {
    let i = (h ^ Math.imul(l, 0x9e3779b1)) & this.mask;
    // lo is never 0 for a stored key (hashKey sets its low bit), so lo === 0 marks a free slot.
    while (this.lo[i] !== 0 && (this.hi[i] !== h || this.lo[i] !== l)) i = (i + 1) & this.mask;
    return i;
  }

  set(key: string, row: number): void {
    const [h, l] = hashKey(key);
    const i = this.slot(h, l);
    if (this.lo[i] === 0) {
      this.hi[i] = h;
      this.lo[i] = l;
      this.size += 1;
    }
    if (row > this.rows[i]) this.rows[i] = row;
    if (this.size * 4 > this.mask * 3) this.grow();
  }

  get(key: string): number | undefined {
    const [h, l] = hashKey(key);
    const i = this.slot(h, l);
    return this.lo[i] === 0 ? undefined : this.rows[i];
  }

  private grow(): void {
    const { hi, lo, rows } = this;
    const cap = (this.mask + 1) * 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.rows = new Uint32Array(cap);
    this.mask = cap - 1;
    for (let j = 0; j < lo.length; j += 1) {
      if (lo[j] === 0) continue;
      const i = this.slot(hi[j], lo[j]);
      this.hi[i] = hi[j];
      this.lo[i] = lo[j];
      this.rows[i] = rows[j];
    }
  }
}
