import { describe, expect, it } from 'vitest';
import { IdTable, joinIds } from '../../src/exporter/id-table.js';

describe("IdTable (a page's row identities as bytes)", () => {
  it('adds each id once, finds it, and iterates in insertion order', () => {
    const t = new IdTable(4);
    expect(t.add('c1@2024-01-01T00:00:00Z')).toBe(true);
    expect(t.add('c2@')).toBe(true);
    expect(t.add('c1@2024-01-01T00:00:00Z')).toBe(false);
    expect(t.add('')).toBe(true);
    expect(t.add('é😀')).toBe(true);
    expect(t.size).toBe(4);
    expect(t.has('c2@')).toBe(true);
    expect(t.has('c2')).toBe(false);
    expect(t.has('é😀')).toBe(true);
    expect([...t]).toEqual(['c1@2024-01-01T00:00:00Z', 'c2@', '', 'é😀']);
  });

  it('grows past its expected size and keeps every id apart', () => {
    const t = new IdTable(16);
    const ids = Array.from({ length: 20_000 }, (_, i) => `contact-${i}@${'x'.repeat(i % 50)}`);
    expect(ids.filter((id) => !t.add(id))).toEqual([]);
    expect(ids.filter((id) => t.add(id))).toEqual([]);
    expect(t.size).toBe(ids.length);
    expect(t.has('contact-20000@')).toBe(false);
    expect(t.idAt(12_345)).toBe(ids[12_345]);
    expect([...t]).toEqual(ids);
  });

  it('joinIds reads two disjoint sets as one without copying', () => {
    const t = new IdTable();
    t.add('a');
    t.add('b');
    const both = joinIds(new Set(['x']), t);
    expect(both.size).toBe(3);
    expect(both.has('a') && both.has('x')).toBe(true);
    expect(both.has('y')).toBe(false);
    expect([...both]).toEqual(['x', 'a', 'b']);
    expect(joinIds(new Set(), t)).toBe(t);
  });
});
