/** UTF-8 bytes a UTF-16 code unit can take at most (a BMP character: 3; a surrogate pair: 4 for 2). */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Whether a text that grows (a line, a record, a row read in pieces) passes a limit in UTF-8
 * bytes, at the cost of a length check while it cannot: each UTF-16 unit is at most 3 bytes, so
 * the bytes are counted only when that bound, from the last exact count, could pass the limit.
 * Each count leaves at least a third of what remains below the limit to grow before the next,
 * so a text read up to the limit is counted a few times (about 13 for 10 MiB in 64 KiB pieces),
 * never once per piece. `reset()` when a new text starts.
 */
export class Utf8Bound {
  private units = 0;
  private bytes = 0;

  constructor(readonly limit: number) {}

  /**
   * Whether `units` UTF-16 units (their exact UTF-8 size from `count()`, called only when needed),
   * with `extra` bytes more (what holding them costs besides their text), pass the limit.
   */
  over(units: number, count: () => number, extra = 0): boolean {
    if (this.bytes + MAX_BYTES_PER_UNIT * (units - this.units) + extra <= this.limit) return false;
    this.units = units;
    this.bytes = count();
    return this.bytes + extra > this.limit;
  }

  reset(): void {
    this.units = 0;
    this.bytes = 0;
  }
}

/** The UTF-8 size of texts held in pieces. */
export function utf8Length(pieces: readonly string[], last = ''): number {
  let n = Buffer.byteLength(last);
  for (const piece of pieces) n += Buffer.byteLength(piece);
  return n;
}

/** A limit as messages give it: `64 MiB` (the limits are whole MiB), else bytes. */
export function bytesText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}
