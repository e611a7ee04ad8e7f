/**
 * Monotonic clock: every call returns a strictly later millisecond than the previous one,
 * so each write gets a unique, increasing `updatedAt` (export ordering is then deterministic).
 */
export class MonotonicClock {
  private last = 0;

  /** Milliseconds since the epoch, strictly greater than any earlier result or observed time. */
  nowMs(): number {
    const now = Date.now();
    this.last = now > this.last ? now : this.last + 1;
    return this.last;
  }

  /** ISO 8601 with milliseconds, e.g. `2025-03-01T12:00:00.123Z`. */
  now(): string {
    return new Date(this.nowMs()).toISOString();
  }

  /** Records a timestamp written by seeding, so later live writes sort after it. */
  observe(iso: string): void {
    const ms = Date.parse(iso);
    if (Number.isFinite(ms) && ms > this.last) this.last = ms;
  }

  /** Forgets everything observed (used when the store is re-seeded). */
  reset(): void {
    this.last = 0;
  }
}
