import { describe, expect, it } from 'vitest';
import { IdTable, joinIds, type Skip } from '../../src/exporter/id-table.js';
import type { ReceivedPage } from '../../src/exporter/page-receiver.js';
import {
  MAX_STUCK_PAGES,
  pageSource,
  stuckCursor,
  type FetchPage,
  type PageSourceOptions,
} from '../../src/exporter/page-source.js';
import { MAX_FIELD_CHANGES } from '../../src/exporter/field-watch.js';

// The page source without a server: a fake fetch that serves rows by cursor, as the receiver would count them.
type Served = Record<string, { ids: string[]; next: string | null }>;
interface Call {
  cursor: string | null;
  skip: Skip;
  signal: AbortSignal;
}

function fakeFetch(served: Served, calls: Call[]): FetchPage {
  return async (cursor, _limit, skip, signal) => {
    calls.push({ cursor, skip, signal });
    const { ids, next } = served[cursor ?? 'start'];
    const hits = new Set<string>();
    const table = new IdTable();
    let repeated = 0;
    for (const id of ids) {
      if (skip.saved.has(id) || skip.recent?.has(id)) hits.add(id);
      else if (!table.add(id)) repeated++;
    }
    const page: ReceivedPage = {
      pieces: [],
      bytes: 0,
      rows: ids.length,
      fresh: table.size,
      repeated,
      freshIds: table,
      hits,
      recent: joinIds(hits, table),
      nextCursor: next,
      release: () => {},
    };
    return page;
  };
}

const source = (served: Served, calls: Call[], more: Partial<PageSourceOptions> = {}) =>
  pageSource({
    fetch: fakeFetch(served, calls),
    start: { cursor: null, seen: [] },
    label: 'export contacts',
    signal: new AbortController().signal,
    limit: () => 100,
    prefetch: () => true,
    stuck: (n) => stuckCursor(undefined, n),
    ...more,
  });

describe('pageSource: the pages of one export', () => {
  it('hands out each page with its step, fetches the next one ahead, and ends after a null cursor', async () => {
    const calls: Call[] = [];
    const got: Array<{ cursor: string | null; fresh: string[]; last: boolean; fetchedAhead: number }> = [];
    for await (const { page, step, cursor } of source(
      { start: { ids: ['a', 'b'], next: 'c2' }, c2: { ids: ['c'], next: null } },
      calls,
    )) {
      got.push({ cursor, fresh: [...page.freshIds], last: step.last, fetchedAhead: calls.length });
    }
    expect(got).toEqual([
      { cursor: null, fresh: ['a', 'b'], last: false, fetchedAhead: 2 },
      { cursor: 'c2', fresh: ['c'], last: true, fetchedAhead: 2 },
    ]);
  });

  it('the next page skips the rows of the page before, and starts from the saved seen', async () => {
    const calls: Call[] = [];
    const again: string[][] = [];
    const served = { c1: { ids: ['s', 'a', 'b'], next: 'c2' }, c2: { ids: ['b', 'c'], next: null } };
    for await (const { step } of source(served, calls, { start: { cursor: 'c1', seen: ['s'] } }))
      again.push(step.again);
    expect(again).toEqual([[], ['b']]);
    // The rows of the page before, hits included (a hit is a row delivered before), and what is
    // left of the saved identities (none: `s` was met).
    expect([...calls[1].skip.recent!].sort()).toEqual(['a', 'b', 's']);
    expect([...calls[1].skip.saved]).toEqual([]);
  });

  it('a consumer that stops early ends the page fetched ahead; `until` stops before any fetch', async () => {
    const calls: Call[] = [];
    for await (const _ of source({ start: { ids: ['a'], next: 'c2' }, c2: { ids: ['b'], next: null } }, calls)) break;
    expect(calls.map((c) => c.cursor)).toEqual([null, 'c2']);
    expect(calls[1].signal.aborted).toBe(true);
    const none: Call[] = [];
    for await (const _ of source({}, none, { until: () => true })) throw new Error('no page expected');
    expect(none).toEqual([]);
  });

  it(`refuses a cursor that stays put for ${MAX_STUCK_PAGES} empty pages, after handing them out`, async () => {
    const calls: Call[] = [];
    let handed = 0;
    const run = async () => {
      for await (const _ of source({ start: { ids: [], next: 'c1' }, c1: { ids: [], next: 'c1' } }, calls)) handed++;
    };
    await expect(run()).rejects.toMatchObject({ code: 'stuck_cursor' });
    expect(handed).toBe(MAX_STUCK_PAGES + 1);
  });

  it('no prefetch when the run may stop after this page', async () => {
    const calls: Call[] = [];
    const fetchedWhenHanded: number[] = [];
    for await (const _ of source({ start: { ids: ['a'], next: 'c2' }, c2: { ids: ['b'], next: null } }, calls, {
      prefetch: () => false,
    })) {
      fetchedWhenHanded.push(calls.length);
    }
    expect(fetchedWhenHanded).toEqual([1, 2]);
  });

  it('a page the field watch does not trust is fetched again from its cursor; five in a row stop the run (exit 7)', async () => {
    const calls: Call[] = [];
    const served = { start: { ids: ['a'], next: 'c2' }, c2: { ids: ['b'], next: null } };
    let answers = [false, false, true];
    const trust = async () => answers.shift() ?? true;
    const got: string[][] = [];
    for await (const { page } of source(served, calls, { trust, prefetch: () => false })) got.push([...page.freshIds!]);
    expect(got).toEqual([['a'], ['b']]);
    expect(calls.map((c) => c.cursor)).toEqual([null, null, null, 'c2']);

    answers = [];
    const reads: Call[] = [];
    const never = source(served, reads, { trust: async () => false });
    await expect(never.next()).rejects.toMatchObject({ code: 'fields_changing', exitCode: 7 });
    expect(reads).toHaveLength(MAX_FIELD_CHANGES);
  });
});
