import type { Clock } from '../clock.js';

export interface RateLimiterOptions {
  /** Steady requests per second. */
  ratePerSecond: number;
  /** Requests that may go at once after an idle spell. */
  burst: number;
  clock: Clock;
}

/**
 * One token bucket per process, shared by all concurrent work. Reservations are taken
 * synchronously in call order, so waiters are served first come, first served.
 * Implemented as GCRA (a token bucket expressed as a theoretical arrival time).
 */
export class RateLimiter {
  private readonly interval: number;
  private readonly tolerance: number;
  private readonly clock: Clock;
  private tat = 0;
  private pausedUntil = 0;

  constructor(opts: RateLimiterOptions) {
    if (!(opts.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    this.interval = 1000 / opts.ratePerSecond;
    this.tolerance = Math.max(0, opts.burst - 1) * this.interval;
    this.clock = opts.clock;
  }

  /** Milliseconds the caller must wait before sending; the slot is reserved on return. */
  reserve(): number {
    const now = this.clock.now();
    const tat = Math.max(this.tat, now);
    const allowedAt = Math.max(tat - this.tolerance, this.pausedUntil);
    this.tat = Math.max(tat, allowedAt) + this.interval;
    return Math.max(0, allowedAt - now);
  }

  /** Waits for a slot. */
  async take(signal?: AbortSignal): Promise<void> {
    let wait = this.reserve();
    while (wait > 0) {
      await this.clock.sleep(wait, signal);
      // A 429 may have paused the bucket while this caller slept on an earlier reservation.
      wait = this.pausedUntil - this.clock.now();
    }
  }

  /** Stops every caller, not just the one that saw the 429, until `ms` from now. */
  pause(ms: number): void {
    const until = this.clock.now() + ms;
    if (until > this.pausedUntil) this.pausedUntil = until;
    if (this.tat < until) this.tat = until;
  }
}
