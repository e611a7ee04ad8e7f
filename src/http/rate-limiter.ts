import type { Clock } from '../clock.js';

/**
 * One limiter per process, shared by all concurrent work: GCRA, a burst of `burst`, then one
 * request every 1/rate seconds. Reservations are taken synchronously in call order, so waiters
 * are served first come, first served. The rate may change while it runs (see RateShare).
 */
export class RateLimiter {
  private interval: number;
  private tolerance: number;
  private readonly burst: number;
  private readonly clock: Clock;
  /** GCRA: the theoretical arrival time. */
  private tat = 0;
  private pausedUntil = 0;
  /** Called on every reservation (RateShare watches whether this process is sending). */
  onReserve?: () => void;
  /** While set, take() waits for it before reserving (the rate share joining: its rate is not known yet). */
  private gate: Promise<void> | undefined;

  constructor(opts: {
    /** Steady requests per second. */
    ratePerSecond: number;
    /** Requests that may go at once after an idle spell. */
    burst: number;
    clock: Clock;
  }) {
    this.burst = opts.burst;
    this.clock = opts.clock;
    this.interval = this.tolerance = 0;
    this.setRate(opts.ratePerSecond);
  }

  /** Changes the steady rate from now on (reservations already handed out keep their times). */
  setRate(ratePerSecond: number): void {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    this.interval = 1000 / ratePerSecond;
    this.tolerance = Math.max(0, this.burst - 1) * this.interval;
  }

  /** The steady rate in force, per second. */
  get rate(): number {
    return 1000 / this.interval;
  }

  /** Milliseconds the caller must wait before sending; the slot is reserved on return. */
  reserve(): number {
    const now = this.clock.now();
    this.onReserve?.();
    const tat = Math.max(this.tat, now);
    const allowedAt = Math.max(tat - this.tolerance, this.pausedUntil);
    this.tat = Math.max(tat, allowedAt) + this.interval;
    return Math.max(0, allowedAt - now);
  }

  /**
   * Until `settled` settles (either way), or `maxMs` at most, callers of take() wait before
   * reserving: a process joining the account's rate share sends no more at its full rate while it
   * learns its share. Bounded, and no listener per waiter (a batch's signal has a listener per
   * request in flight already): an abort meanwhile is seen when the hold ends.
   */
  holdUntil(settled: Promise<unknown>, maxMs = 1_000): void {
    const gate = Promise.race([
      settled.then(
        () => {},
        () => {},
      ),
      new Promise<void>((resolve) => setTimeout(resolve, maxMs).unref()),
    ]);
    this.gate = gate;
    void gate.then(() => {
      if (this.gate === gate) this.gate = undefined;
    });
  }

  /** Waits for a slot. */
  async take(signal?: AbortSignal): Promise<void> {
    while (this.gate) await this.gate;
    signal?.throwIfAborted();
    let wait = this.reserve();
    while (wait > 0) {
      await this.clock.sleep(wait, signal);
      // A 429 may have paused the bucket while this caller slept on an earlier reservation.
      wait = this.pausedUntil - this.clock.now();
    }
  }

  /** Stops every caller, not just the one that saw the 429, until `ms` from now; then the steady rate, no burst. */
  pause(ms: number): void {
    const until = this.clock.now() + ms;
    if (until > this.pausedUntil) this.pausedUntil = until;
    if (this.tat < until) this.tat = until;
  }
}
