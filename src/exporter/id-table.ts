import { lanesHex } from '../lib/content-hash.js';
import { OpenTable } from '../lib/open-table.js';

/**
 * A row's identity as the de-duplication reads it, its text not built: an event's id (`head`),
 * or a contact's version (`head@tail`: id and updatedAt) and the lanes of a hash of its content
 * (`mark` says which). Building `id@updatedAt#k<hash>` for every row cost a third of an export's
 * CPU; the text is made only where it is kept (the state's `seen`) or looked up in a Set.
 */
export interface RowKey {
  head: string;
  /** Contacts: updatedAt; undefined for events. */
  tail: string | undefined;
  /**
   * Contacts: the content hash's lanes, of one of two forms (`mark`): KEYED_MARK, its fields
   * named by key (src/lib/keyed-hash.ts: a relabel changes nothing), the form a state saves;
   * TEXT_MARK, the hash of the row's text as sent (cheaper to make), what a run compares a page
   * with the page before by, in memory.
   */
  a: number;
  b: number;
  mark: string;
  /** The key's 32-bit hash, for the tables. */
  hash: number;
}

/** A set of row identities as the de-duplication reads it: a `Set<string>`, an `IdTable`, or both composed. */
export interface Ids extends Iterable<string> {
  readonly size: number;
  has(id: string): boolean;
  /** The same question for a row's key, where the set can answer it without the key's text (an IdTable). */
  hasKey?(key: RowKey): boolean;
}

/**
 * What a page's rows are compared with, to leave out the rows delivered before: the identities
 * saved with the position (a contact by its keyed identity, the form saved), and the rows of the
 * page before in this run (in memory: a contact by the hash of its text, cheaper to make).
 */
export interface Skip {
  saved: Ids;
  /** Contacts: the ids the saved identities name (only a row of one of them can be among them). */
  heads?: ReadonlySet<string>;
  /** Contacts: identities saved in an earlier cnv's forms (kinds.ts: savedForms). */
  legacy?: ReadonlySet<string>;
  texts?: ReadonlySet<string>;
  recent?: Ids;
}

/** A contact's content hash with its fields named by key, in its identity text (`#k<hash>`): the form saved. */
export const KEYED_MARK = '#k';
/** A hash of the row's text as sent (`#<hash>`): in memory only (a state of an earlier cnv holds it too). */
export const TEXT_MARK = '#';

/** The identity text of a key: `eventId`, or `id@updatedAt#k<content hash>` (or `#<hash>`, its mark). */
export function identityText(key: RowKey): string {
  return key.tail === undefined ? key.head : `${key.head}@${key.tail}${key.mark}${lanesHex(key.a, key.b)}`;
}

/** Whether `ids` holds the row of `key` (its text made only for a set that keeps texts). */
export function hasRow(ids: Ids, key: RowKey): boolean {
  if (ids.hasKey) return ids.hasKey(key);
  return ids.size > 0 && ids.has(identityText(key));
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
  /** The mark of the content hashes of the contacts' versions it holds (one form a table). */
  private readonly mark: string;
  private units: Uint16Array;
  /** ends[i]: where id i's units end (it starts where id i-1 ends). */
  private ends: Uint32Array;
  private hashes: Uint32Array;
  /** Entries added by a contact's key: the lanes of its content hash (`#k<hash>` when read as text), and whether it has them. */
  private laneA: Int32Array;
  private laneB: Int32Array;
  private keyed: Uint8Array;
  private keyedCount = 0;
  /** The texts of the entries added by a key, once `has` asked for a text (rare: tests, a saved state's check). */
  private keyedTexts: Set<string> | undefined;
  /** Where each id's index is, by its hash. */
  private readonly table: OpenTable;
  private used = 0;
  size = 0;

  constructor(expected = 64, mark = KEYED_MARK) {
    this.mark = mark;
    const n = Math.max(16, expected);
    this.units = new Uint16Array(n * 64);
    this.ends = new Uint32Array(n);
    this.hashes = new Uint32Array(n);
    this.laneA = new Int32Array(n);
    this.laneB = new Int32Array(n);
    this.keyed = new Uint8Array(n);
    this.table = new OpenTable(n);
  }

  /** Whether the id is here (the entries added by a key are read as their texts, made once). */
  has(id: string): boolean {
    if (this.find(id, hashId(id)) >= 0) return true;
    if (this.keyedTexts === undefined || this.keyedTexts.size < this.keyedCount) {
      this.keyedTexts = new Set();
      for (let i = 0; i < this.size; i++) if (this.keyed[i] === 1) this.keyedTexts.add(this.idAt(i));
    }
    return this.keyedTexts.has(id);
  }

  hasKey(key: RowKey): boolean {
    if (key.tail === undefined) return this.find(key.head, key.hash) >= 0;
    if (this.findKey(key) >= 0) return true;
    // A contact's identity added as text (not by the receiver): asked by its text.
    if (this.keyedCount === this.size) return false;
    const text = identityText(key);
    return this.find(text, hashId(text)) >= 0;
  }

  /** Adds `id`; false when it was there already. */
  add(id: string, hash = hashId(id)): boolean {
    const found = this.find(id, hash);
    if (found >= 0) return false;
    const index = this.append(id, undefined, hash);
    this.table.placeAt(-found - 1, index);
    if (this.table.full) this.table.grow((i) => this.hashes[i]);
    return true;
  }

  /** Adds a row's key; false when it was there already. */
  addKey(key: RowKey): boolean {
    if (key.tail === undefined) return this.add(key.head, key.hash);
    const found = this.findKey(key);
    if (found >= 0) return false;
    const index = this.append(key.head, key.tail, key.hash);
    this.laneA[index] = key.a;
    this.laneB[index] = key.b;
    this.keyed[index] = 1;
    this.keyedCount++;
    this.table.placeAt(-found - 1, index);
    if (this.table.full) this.table.grow((i) => this.hashes[i]);
    return true;
  }

  /**
   * Adds entry `index` of `from` (a contact's version, added by its key) with other content lanes
   * (`key`'s a, b and hash): the same version in another form of hash. False when it was there.
   */
  addVersionOf(from: IdTable, index: number, key: Pick<RowKey, 'a' | 'b' | 'hash'>): boolean {
    const start = index === 0 ? 0 : from.ends[index - 1];
    const version = from.units.subarray(start, from.ends[index]);
    const table = this.table;
    let at = table.first(key.hash);
    for (; ; at = table.next(at)) {
      const found = table.entryAt(at);
      if (found < 0) break;
      if (this.hashes[found] !== key.hash || this.laneA[found] !== key.a || this.laneB[found] !== key.b) continue;
      const begin = found === 0 ? 0 : this.ends[found - 1];
      if (this.ends[found] - begin === version.length && version.every((u, i) => this.units[begin + i] === u))
        return false;
    }
    const entry = this.size;
    if (entry === this.ends.length) this.growEntries();
    const end = this.used + version.length;
    if (end > this.units.length) this.growUnits(end);
    this.units.set(version, this.used);
    this.used = end;
    this.ends[entry] = end;
    this.hashes[entry] = key.hash;
    this.laneA[entry] = key.a;
    this.laneB[entry] = key.b;
    this.keyed[entry] = 1;
    this.keyedCount++;
    this.size = entry + 1;
    this.table.placeAt(at, entry);
    if (this.table.full) this.table.grow((i) => this.hashes[i]);
    return true;
  }

  /** The id at `index` (insertion order), as a string. */
  idAt(index: number): string {
    const start = index === 0 ? 0 : this.ends[index - 1];
    const text = unitsToString(this.units, start, this.ends[index]);
    return this.keyed[index] === 1 ? `${text}${this.mark}${lanesHex(this.laneA[index], this.laneB[index])}` : text;
  }

  /** Stores `head` (and `@tail`) as a new entry's units; its index. */
  private append(head: string, tail: string | undefined, hash: number): number {
    const index = this.size;
    if (index === this.ends.length) this.growEntries();
    const start = this.used;
    const end = start + head.length + (tail === undefined ? 0 : tail.length + 1);
    if (end > this.units.length) this.growUnits(end);
    const units = this.units;
    let at = start;
    for (let i = 0; i < head.length; i++) units[at++] = head.charCodeAt(i);
    if (tail !== undefined) {
      units[at++] = AT;
      for (let i = 0; i < tail.length; i++) units[at++] = tail.charCodeAt(i);
    }
    this.used = end;
    this.ends[index] = end;
    this.hashes[index] = hash;
    this.keyed[index] = 0;
    this.size = index + 1;
    return index;
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

  /** The entry index of a contact's key, or -(free slot + 1) where it would go. */
  private findKey(key: RowKey): number {
    const table = this.table;
    for (let at = table.first(key.hash); ; at = table.next(at)) {
      const index = table.entryAt(at);
      if (index < 0) return -(at + 1);
      if (
        this.hashes[index] === key.hash &&
        this.keyed[index] === 1 &&
        this.laneA[index] === key.a &&
        this.laneB[index] === key.b &&
        this.equalsVersion(index, key.head, key.tail!)
      )
        return index;
    }
  }

  private equals(index: number, id: string): boolean {
    const start = index === 0 ? 0 : this.ends[index - 1];
    if (this.keyed[index] === 1 || this.ends[index] - start !== id.length) return false;
    const units = this.units;
    for (let i = 0; i < id.length; i++) if (units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private equalsVersion(index: number, head: string, tail: string): boolean {
    let at = index === 0 ? 0 : this.ends[index - 1];
    if (this.ends[index] - at !== head.length + 1 + tail.length) return false;
    const units = this.units;
    for (let i = 0; i < head.length; i++) if (units[at++] !== head.charCodeAt(i)) return false;
    if (units[at++] !== AT) return false;
    for (let i = 0; i < tail.length; i++) if (units[at++] !== tail.charCodeAt(i)) return false;
    return true;
  }

  private growEntries(): void {
    const n = this.ends.length * 2;
    this.ends = grown(this.ends, n);
    this.hashes = grown(this.hashes, n);
    this.laneA = grown(this.laneA, n);
    this.laneB = grown(this.laneB, n);
    this.keyed = grown(this.keyed, n);
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
    has: (id) => a.has(id) || b.has(id),
    hasKey: (key) => hasRow(a, key) || hasRow(b, key),
    *[Symbol.iterator]() {
      yield* a;
      yield* b;
    },
  };
}

function grown<T extends Uint32Array | Int32Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

const AT = 0x40; // '@'

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
