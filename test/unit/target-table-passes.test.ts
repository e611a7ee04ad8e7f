import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { LedgerEntry, LedgerRecord } from '../../src/ledger/ledger-file.js';
import { TablePasses } from '../../src/target/table-passes.js';

/** A ledger's entries (the members a stream added: key -> contact), the part TablePasses reads, records applied as Ledger.record does. */
function ledgerOf(members: string[]) {
  const entries = new Map<string, LedgerEntry>(members.map((k) => [k, { digest: 'd', state: 'ok', id: `id-${k}` }]));
  const apply = (records: LedgerRecord[]) => {
    for (const r of records) if (r[0] === 'put') entries.set(r[1], { digest: r[2], state: r[3] });
  };
  return { ledger: { entries } as unknown as Ledger, apply };
}

describe("an audience stream's passes", () => {
  it('end-style: ACTIVATE_VERSION after records of its version completes the pass; the members it held are kept', () => {
    const { ledger } = ledgerOf(['a', 'b', 'c']);
    const passes = new TablePasses(ledger);
    expect(passes.startsPass(100)).toBe(true);
    expect(passes.start(100)).toBeUndefined();
    for (const key of ['a', 'b']) passes.see(key, 100);
    expect(passes.activate(100)).toEqual({ kind: 'complete', cutoff: 100, unkeyed: 0 });
    expect([...passes.keptSince(100)].sort()).toEqual(['a', 'b']);
    // An older version's ACTIVATE_VERSION is ignored.
    expect(passes.activate(50)).toEqual({ kind: 'older', active: 100 });
  });

  it('start-style: a new pass removes what the two passes before it both left out, only when both held records with keys', () => {
    const { ledger } = ledgerOf(['a', 'b', 'c']);
    const passes = new TablePasses(ledger);
    expect(passes.activate(100)).toEqual({ kind: 'start', cutoff: undefined });
    expect(passes.activate(100)).toEqual({ kind: 'again' });
    for (const key of ['a', 'b', 'c']) passes.see(key, 100);
    expect(passes.activate(200)).toEqual({ kind: 'start', cutoff: undefined });
    for (const key of ['a', 'b']) passes.see(key, 200);
    // c was left out of 200 only: not before 100's cutoff.
    expect(passes.activate(300)).toEqual({ kind: 'start', cutoff: 100 });
    expect(passes.keptSince(100).has('c')).toBe(true);
    for (const key of ['a', 'b']) passes.see(key, 300);
    expect(passes.activate(400)).toEqual({ kind: 'start', cutoff: 200 });
    expect([...passes.keptSince(200)].sort()).toEqual(['a', 'b']);
    // A pass with a record without a key: no cutoff after it.
    passes.see(undefined, 400);
    expect(passes.activate(500)).toEqual({ kind: 'start', cutoff: undefined });
  });

  it('what it learnt goes to the ledger and is read back by the next run', () => {
    const { ledger, apply } = ledgerOf(['a', 'b']);
    const first = new TablePasses(ledger);
    first.start(100);
    first.see('a', 100);
    first.see('b', 100);
    apply(first.drain());
    expect(first.drain()).toEqual([]);
    const next = new TablePasses(ledger);
    expect(next.startsPass(100)).toBe(false);
    next.see('a', 100);
    expect(next.activate(100)).toEqual({ kind: 'complete', cutoff: 100, unkeyed: 0 });
    expect([...next.keptSince(100)].sort()).toEqual(['a', 'b']);
    expect([...next.allBut(new Set(['a']))]).toEqual(['b']);
  });
});
