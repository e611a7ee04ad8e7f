/** `1 row`, `2 rows`, `1,234 rows` (en-US digit groups). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** `430 ms` under a second, else `3.2 s`: a short run never reads as `0.0 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `, 781 rows/s` for a run long enough for a rate to mean something (a second or more, some
 * rows); else nothing, rather than `75 rows/s` for 3 rows in 40 ms.
 */
export function rate(rows: number, ms: number): string {
  return hasRate(rows, ms) ? `, ${Math.round(rows / (ms / 1000)).toLocaleString('en-US')} rows/s` : '';
}

/** Whether a rate means something: a second or more, and some rows. */
export function hasRate(rows: number, ms: number): boolean {
  return ms >= 1000 && rows > 0;
}
