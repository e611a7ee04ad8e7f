import { OpenTable } from '../lib/open-table.js';

/**
 * Where each contact of the snapshot file is: its latest line (byte offset and length), and
 * 64-bit hashes of its id and email, in typed arrays (a million contacts in
 * about 40 MB; as strings in Maps they took several times that). Two open-addressing tables
 * (src/lib/open-table.ts) map an id hash, and an email hash, to slots. A hash only narrows the search: callers read
 * the line and check the id or email itself (`SnapshotFile`), so a collision can never match
 * the wrong contact.
 */
export class SnapshotIndex {
  /** Contacts (slots in use). */
  size = 0;
  /** Lines indexed, every version of a contact counted. */
  lines = 0;
  // Hashes as int32 (small integers to V8: no number is boxed on the way).
  private idLo = new Int32Array(1024);
  private idHi = new Int32Array(1024);
  private emailLo = new Int32Array(1024);
  private emailHi = new Int32Array(1024);
  private hasEmail = new Uint8Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  /** Slots by id hash. */
  private readonly idTable = new OpenTable(1024);
  /** Slots by email hash; an email that changed leaves its old entry, filtered out on lookup. */
  private readonly emailTable = new OpenTable(1024);

  /** Records one line: a new contact, or a later version of one already indexed. */
  add(id: string, email: string | null, offset: number, length: number): void {
    this.lines++;
    hash(id);
    const lo = h1;
    const hi = h2;
    let slot = this.findId(lo, hi);
    if (slot < 0) {
      slot = this.size++;
      this.grow();
      this.idLo[slot] = lo;
      this.idHi[slot] = hi;
      this.idTable.place(lo, slot);
      if (this.idTable.full) this.idTable.grow((s) => this.idLo[s]);
    }
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
    const had = this.hasEmail[slot] === 1;
    if (email === null) {
      this.hasEmail[slot] = 0;
      return;
    }
    hash(email, true);
    if (had && this.emailLo[slot] === h1 && this.emailHi[slot] === h2) return;
    this.hasEmail[slot] = 1;
    this.emailLo[slot] = h1;
    this.emailHi[slot] = h2;
    this.emailTable.place(h1, slot);
    if (this.emailTable.full) this.rebuildEmails();
  }

  /** The slots whose id hash is this id's (normally one; none when the id is not in the snapshot). */
  slotsById(id: string): number[] {
    hash(id);
    const lo = h1;
    const hi = h2;
    return this.collect(this.idTable, lo, (s) => this.idLo[s] === lo && this.idHi[s] === hi);
  }

  /** The slots whose current email hashes as this one (matched in any case, without surrounding spaces). */
  slotsByEmail(email: string): number[] {
    hash(email, true);
    const lo = h1;
    const hi = h2;
    return this.collect(
      this.emailTable,
      lo,
      (s) => this.hasEmail[s] === 1 && this.emailLo[s] === lo && this.emailHi[s] === hi,
    );
  }

  /** Where a slot's latest line is in the file. */
  line(slot: number): { offset: number; length: number } {
    return { offset: this.offsets[slot], length: this.lengths[slot] };
  }

  private findId(lo: number, hi: number): number {
    const table = this.idTable;
    for (let at = table.first(lo); ; at = table.next(at)) {
      const slot = table.entryAt(at);
      if (slot < 0) return -1;
      if (this.idLo[slot] === lo && this.idHi[slot] === hi) return slot;
    }
  }

  private collect(table: OpenTable, lo: number, match: (slot: number) => boolean): number[] {
    const found: number[] = [];
    for (let at = table.first(lo); ; at = table.next(at)) {
      const slot = table.entryAt(at);
      if (slot < 0) return found;
      if (match(slot) && !found.includes(slot)) found.push(slot);
    }
  }

  /** The email table again, from the slots' current emails only (drops the entries of old emails). */
  private rebuildEmails(): void {
    // Room for twice the contacts, and never smaller than it was.
    this.emailTable.reset(Math.max(2 * this.size, this.emailTable.slotCount / 2));
    for (let s = 0; s < this.size; s++) if (this.hasEmail[s] === 1) this.emailTable.place(this.emailLo[s], s);
  }

  private grow(): void {
    if (this.size <= this.idLo.length) return;
    const n = this.idLo.length * 2;
    const more = <T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(
      a: T,
      make: new (n: number) => T,
    ): T => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.idLo = more(this.idLo, Int32Array);
    this.idHi = more(this.idHi, Int32Array);
    this.emailLo = more(this.emailLo, Int32Array);
    this.emailHi = more(this.emailHi, Int32Array);
    this.hasEmail = more(this.hasEmail, Uint8Array);
    this.offsets = more(this.offsets, Float64Array);
    this.lengths = more(this.lengths, Uint32Array);
  }
}

/** How the API matches emails (the emulator's rule, and the usual one): in any case, without surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// The two halves of the last hash (no array per call: this runs for every line and lookup).
let h1 = 0;
let h2 = 0;

/**
 * FNV-1a and a second, independent multiply-xorshift hash of the UTF-16 units; `email`: of the
 * text as normalizeEmail leaves it (trimmed, lower case), without making that string when it is
 * plain ASCII already trimmed (every row of an export, nearly).
 */
function hash(text: string, email = false): void {
  let s = text;
  if (email && /[^\x21-\x40\x5b-\x7e]/.test(s)) s = normalizeEmail(s);
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  h1 = a ^ (a >>> 16);
  h2 = b | 0;
}
