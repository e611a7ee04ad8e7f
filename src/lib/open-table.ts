/**
 * cnv's one open-addressing hash table: where each entry is, by a 32-bit hash, with linear
 * probing over an Int32Array (entry + 1; 0 is an empty slot), a power of two long and at most
 * half full. The entries themselves (ids, hashes, offsets) stay in the caller's own typed arrays,
 * which is what keeps millions of them off the JS heap; the caller confirms a match itself. A
 * lookup walks the probe from `first(hash)` with `next`, reading `entryAt` until -1 (empty):
 * small methods V8 inlines, no closure per lookup.
 */
export class OpenTable {
  private slots: Int32Array;
  private mask: number;
  /** Entries placed (an entry placed twice, under two hashes, counts twice). */
  count = 0;

  /** Room for `entries` before the first growth. */
  constructor(entries = 8) {
    this.slots = new Int32Array(slotsFor(entries));
    this.mask = this.slots.length - 1;
  }

  /** The first slot of a hash's probe. */
  first(hash: number): number {
    return hash & this.mask;
  }

  /** The slot after `at` in a probe. */
  next(at: number): number {
    return (at + 1) & this.mask;
  }

  /** The entry in slot `at`; -1 when the slot is empty (the end of a probe). */
  entryAt(at: number): number {
    return this.slots[at] - 1;
  }

  /** Places `entry` in the empty slot `at` that a probe ended at. */
  placeAt(at: number, entry: number): void {
    this.slots[at] = entry + 1;
    this.count++;
  }

  /** Places `entry` at the end of its hash's probe. */
  place(hash: number, entry: number): void {
    let at = hash & this.mask;
    while (this.slots[at] !== 0) at = (at + 1) & this.mask;
    this.placeAt(at, entry);
  }

  /** Its slots (twice its room, at least). */
  get slotCount(): number {
    return this.slots.length;
  }

  /** More than half full: time to `grow`. */
  get full(): boolean {
    return this.count * 2 > this.slots.length;
  }

  /** Twice the slots, every entry placed again by `hashOf` (its hash, which the table does not keep). */
  grow(hashOf: (entry: number) => number): void {
    const old = this.slots;
    this.reset(old.length);
    for (const slot of old) if (slot !== 0) this.place(hashOf(slot - 1), slot - 1);
  }

  /** Empty, with room for `entries`. */
  reset(entries: number): void {
    this.slots = new Int32Array(slotsFor(entries));
    this.mask = this.slots.length - 1;
    this.count = 0;
  }
}

/** At least twice the entries, a power of two (16 at least): probes stay short. */
function slotsFor(entries: number): number {
  let n = 16;
  while (n < entries * 2) n *= 2;
  return n;
}
