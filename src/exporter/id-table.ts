import { OpenTable } from '../lib/open-table.js';

/** A set of row identities as the de-duplication reads it: a `Set<string>`, an `IdTable`, or both composed. */
export interface Ids extends Iterable<string> {
  readonly size: number;
  /** `hash`: the id's `hashId`, when the caller has it (a Set ignores it). */
  has(id: string, hash?: number): boolean;
  /** Contacts: identities saved without a content hash (`id@updatedAt`), matched by version alone. */
  readonly legacy?: ReadonlySet<string>;
}

/**
 * One page's row identities, kept as UTF-16 code units in typed arrays instead of as strings.
 * A page's ids live across the prefetch of the next page; as strings in Sets (~5,000 per page,
 * two Sets) they survived young-generation collections and were promoted, which more than
 * doubled the GC time of a long export. Typed arrays hold their bytes outside the JS heap, so
 * there is nothing for the collector to copy or promote. Open addressing on an FNV-1a hash of
 * the code units (src/lib/open-table.ts); a hash match is confirmed by comparing the units.
 * Iterates in insertion order.
 */
export class IdTable implements Ids {
  private units: Uint16Array;
  /** ends[i]: where id i's units end (it starts where id i-1 ends). */
  private ends: Uint32Array;
  private hashes: Uint32Array;
  /** Where each id's index is, by its hash. */
  private readonly table: OpenTable;
  private used = 0;
  size = 0;

  constructor(expected = 64) {
    const n = Math.max(16, expected);
    this.units = new Uint16Array(n * 64);
    this.ends = new Uint32Array(n);
    this.hashes = new Uint32Array(n);
    this.table = new OpenTable(n);
  }

  has(id: string, hash = hashId(id)): boolean {
    return this.find(id, hash) >= 0;
  }

  /** Adds `id`; false when it was there already. */
  add(id: string, hash = hashId(id)): boolean {
    const found = this.find(id, hash);
    if (found >= 0) return false;
    const index = this.size;
    if (index === this.ends.length) this.growEntries();
    const start = this.used;
    const end = start + id.length;
    if (end > this.units.length) this.growUnits(end);
    const units = this.units;
    for (let i = 0; i < id.length; i++) units[start + i] = id.charCodeAt(i);
    this.used = end;
    this.ends[index] = end;
    this.hashes[index] = hash;
    this.size = index + 1;
    this.table.placeAt(-found - 1, index);
    if (this.table.full) this.table.grow((i) => this.hashes[i]);
    return true;
  }

  /** The id at `index` (insertion order), as a string. */
  idAt(index: number): string {
    const start = index === 0 ? 0 : this.ends[index - 1];
    return unitsToString(this.units, start, this.ends[index]);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.size; i++) yield this.idAt(i);
  }

  /** The entry index of `id`, or -(free slot + 1) where it would go. */
  private find(id: string, hash: number): number {
    const table = this.table;
    for (let at = table.first(hash); ; at = table.next(at)) {
      const index = table.entryAt(at);
      if (index < 0) return -(at + 1);
      if (this.hashes[index] === hash && this.equals(index, id)) return index;
    }
  }

  private equals(index: number, id: string): boolean {
    const start = index === 0 ? 0 : this.ends[index - 1];
    if (this.ends[index] - start !== id.length) return false;
    const units = this.units;
    for (let i = 0; i < id.length; i++) if (units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private growEntries(): void {
    const n = this.ends.length * 2;
    this.ends = grown(this.ends, n);
    this.hashes = grown(this.hashes, n);
  }

  private growUnits(needed: number): void {
    let n = this.units.length * 2;
    while (n < needed) n *= 2;
    const units = new Uint16Array(n);
    units.set(this.units.subarray(0, this.used));
    this.units = units;
  }
}

/**
 * Two disjoint sets read as one, without copying either: what the next page skips is the
 * (usually empty) remembered ids plus this page's table.
 */
export function joinIds(a: Ids, b: Ids): Ids {
  if (a.size === 0) return b;
  if (b.size === 0) return a;
  return {
    size: a.size + b.size,
    has: (id, hash = hashId(id)) => a.has(id, hash) || b.has(id, hash),
    *[Symbol.iterator]() {
      yield* a;
      yield* b;
    },
  };
}

function grown(array: Uint32Array, length: number): Uint32Array {
  const next = new Uint32Array(length);
  next.set(array);
  return next;
}

/** 32-bit FNV-1a over the UTF-16 code units: computed once per row for both lookups. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function unitsToString(units: Uint16Array, start: number, end: number): string {
  let out = '';
  // In chunks: fromCharCode takes its units as arguments.
  for (let i = start; i < end; i += 4096) out += String.fromCharCode(...units.subarray(i, Math.min(end, i + 4096)));
  return out;
}
