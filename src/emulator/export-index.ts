import { comparePositions, lowerBound, type LogPosition } from './change-log.js';

/** One source of export rows whose positions ascend with the index. */
export interface OrderedSource<R> {
  readonly size: number;
  position(i: number): LogPosition;
  /** The row at i, or undefined when that entry is dead (written again since, or deleted). */
  row(i: number): R | undefined;
}

/** Rows strictly after `after`, with a timestamp in [fromMs, toMs). */
interface Range {
  after: LogPosition | null;
  fromMs?: number;
  toMs?: number;
}

export interface Taken<R> {
  position: LogPosition;
  row: R;
}

/**
 * Up to `limit` rows of `range`, merged from several sources in position order. Each source is
 * entered by binary search, so a page costs O(log n + limit) however far into the data it is.
 */
export function takeOrdered<R>(sources: ReadonlyArray<OrderedSource<R>>, range: Range, limit: number): Taken<R>[] {
  const heads = sources.map((source) => ({ source, i: seek(source, range), cur: undefined as Taken<R> | undefined }));
  const advance = (h: (typeof heads)[number]) => {
    h.cur = undefined;
    while (h.i < h.source.size) {
      const position = h.source.position(h.i);
      if (range.toMs !== undefined && position[0] >= range.toMs) {
        h.i = h.source.size;
        return;
      }
      const row = h.source.row(h.i++);
      if (row !== undefined) {
        h.cur = { position, row };
        return;
      }
    }
  };
  heads.forEach(advance);
  const out: Taken<R>[] = [];
  while (out.length < limit) {
    let best: (typeof heads)[number] | undefined;
    for (const h of heads) {
      if (h.cur && (!best || comparePositions(h.cur.position, best.cur!.position) < 0)) best = h;
    }
    if (!best) break;
    out.push(best.cur!);
    advance(best);
  }
  return out;
}

function seek<R>(source: OrderedSource<R>, range: Range): number {
  const { after, fromMs } = range;
  const pastCursor = after ? lowerBound(source.size, (i) => comparePositions(source.position(i), after) > 0) : 0;
  const pastStart = fromMs !== undefined ? lowerBound(source.size, (i) => source.position(i)[0] >= fromMs) : 0;
  return Math.max(pastCursor, pastStart);
}

/**
 * Items of an append-only array (the store's events) kept sorted by position. `sync` takes in
 * what was appended since the last call, and starts over when the array was emptied (a reset).
 */
export class SortedIndex<E> {
  private items: E[] = [];
  private keys: LogPosition[] = [];
  private seen = 0;
  private lastSeen: E | undefined;

  constructor(
    private readonly key: (item: E) => LogPosition,
    private readonly accept: (item: E) => boolean = () => true,
  ) {}

  sync(source: readonly E[]): this {
    if (source.length < this.seen || (this.seen > 0 && source[this.seen - 1] !== this.lastSeen)) {
      this.items = [];
      this.keys = [];
      this.seen = 0;
    }
    for (let i = this.seen; i < source.length; i++) if (this.accept(source[i])) this.insert(source[i]);
    this.seen = source.length;
    this.lastSeen = source[source.length - 1];
    return this;
  }

  /** The latest timestamp held, or -Infinity when empty. */
  get lastMs(): number {
    return this.keys.length ? this.keys[this.keys.length - 1][0] : -Infinity;
  }

  source<R>(view: (item: E) => R | undefined): OrderedSource<R> {
    return { size: this.items.length, position: (i) => this.keys[i], row: (i) => view(this.items[i]) };
  }

  private insert(item: E): void {
    const key = this.key(item);
    const n = this.keys.length;
    const at =
      n === 0 || comparePositions(key, this.keys[n - 1]) >= 0
        ? n
        : lowerBound(n, (i) => comparePositions(this.keys[i], key) > 0);
    this.items.splice(at, 0, item);
    this.keys.splice(at, 0, key);
  }
}
