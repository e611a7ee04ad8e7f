import { describe, expect, it } from 'vitest';
import { OpenTable } from '../../src/lib/open-table.js';

/** The entries of a hash's probe, as a caller walks it. */
function probe(table: OpenTable, hash: number): number[] {
  const out: number[] = [];
  for (let at = table.first(hash); table.entryAt(at) >= 0; at = table.next(at)) out.push(table.entryAt(at));
  return out;
}

describe('OpenTable (the one open-addressing table: export ids, the sync snapshot index)', () => {
  it('finds every entry placed, through collisions (one hash for all) and growth, never more than half full', () => {
    const hashes = Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? 42 : Math.imul(i, 0x9e3779b1) >>> 0));
    const table = new OpenTable(4);
    for (const [entry, hash] of hashes.entries()) {
      table.place(hash, entry);
      if (table.full) table.grow((e) => hashes[e]);
      expect(table.count * 2).toBeLessThanOrEqual(table.slotCount);
    }
    expect(table.count).toBe(1000);
    for (const [entry, hash] of hashes.entries()) expect(probe(table, hash)).toContain(entry);
    expect(probe(table, 42).filter((e) => hashes[e] === 42)).toHaveLength(143);
  });

  it('a probe ends at an empty slot, which placeAt fills (the miss a lookup found)', () => {
    const table = new OpenTable(8);
    let at = table.first(5);
    while (table.entryAt(at) >= 0) at = table.next(at);
    table.placeAt(at, 3);
    expect(probe(table, 5)).toEqual([3]);
    expect(probe(table, 5 + table.slotCount)).toEqual([3]);
    expect(probe(table, 6)).toEqual([]);
  });

  it('reset empties it, with room for what is asked, a power of two', () => {
    const table = new OpenTable();
    table.place(1, 0);
    table.reset(100);
    expect(table.count).toBe(0);
    expect(table.slotCount).toBe(256);
    expect(probe(table, 1)).toEqual([]);
  });
});
