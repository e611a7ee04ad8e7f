/** A place in an export's order: (timestamp in ms, id), compared in that order. */
export type LogPosition = readonly [number, string];

/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
}

/** Index of the first item in [0, n) for which `isAfter` holds (`isAfter` flips once, false to true). */
export function lowerBound(n: number, isAfter: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isAfter(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Every contact write as an entry (updatedAt, id), kept in that order, so the contacts export
 * walks contacts by updatedAt and a cursor (the position of its last row) finds the contacts
 * written since. An entry whose contact was written again or deleted since is dead: the
 * export skips it, and dead entries are compacted away once they outnumber the live ones.
 */
export class ContactChangeLog {
  private ms: number[] = [];
  private ids: string[] = [];
  private stamps: string[] = [];

  constructor(
    private readonly isLive: (id: string, updatedAt: string) => boolean,
    private readonly liveCount: () => number,
  ) {}

  get length(): number {
    return this.ids.length;
  }

  /** Records a write; live writes come in time order and append, seeds may insert. */
  record(id: string, updatedAt: string): void {
    const ms = Date.parse(updatedAt);
    const n = this.ids.length;
    const at =
      n === 0 || comparePositions([ms, id], this.position(n - 1)) >= 0
        ? n
        : lowerBound(n, (i) => comparePositions(this.position(i), [ms, id]) > 0);
    this.ms.splice(at, 0, ms);
    this.ids.splice(at, 0, id);
    this.stamps.splice(at, 0, updatedAt);
    if (this.ids.length > 1024 && this.ids.length > 2 * this.liveCount()) this.compact();
  }

  position(i: number): LogPosition {
    return [this.ms[i], this.ids[i]];
  }

  /** The contact id at i when that entry is the contact's latest write, else undefined. */
  liveId(i: number): string | undefined {
    return this.isLive(this.ids[i], this.stamps[i]) ? this.ids[i] : undefined;
  }

  clear(): void {
    this.ms = [];
    this.ids = [];
    this.stamps = [];
  }

  private compact(): void {
    const keep = this.ids.map((id, i) => this.isLive(id, this.stamps[i]));
    this.ms = this.ms.filter((_, i) => keep[i]);
    this.ids = this.ids.filter((_, i) => keep[i]);
    this.stamps = this.stamps.filter((_, i) => keep[i]);
  }
}
