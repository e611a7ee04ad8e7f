import type { Clock } from '../clock.js';

export interface RateLimiterOptions {
  /** Steady requests per second. */
  ratePerSecond: number;
  /** Requests that may go at once after an idle spell ('smooth' only). */
  burst: number;
  clock: Clock;
  /**
   * 'smooth' (default): GCRA, a burst of `burst`, then one request every 1/rate seconds.
   * 'window': at most `ratePerSecond` requests in any sliding second; after an idle spell they
   * may all go at once, which a run of a few dozen requests (a batch file) finishes in, while a
   * long run is held to the same steady rate.
   */
  shape?: 'smooth' | 'window';
}

/**
 * One limiter per process, shared by all concurrent work. Reservations are taken
 * synchronously in call order, so waiters are served first come, first served.
 */
export class RateLimiter {
  private readonly interval: number;
  private readonly tolerance: number;
  private readonly clock: Clock;
  /** GCRA: the theoretical arrival time. */
  private tat = 0;
  private pausedUntil = 0;
  /** Window: the times of the last `ratePerSecond` reservations, as a ring. */
  private readonly ring: Float64Array | undefined;
  private at = 0;

  constructor(opts: RateLimiterOptions) {
    if (!(opts.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    this.interval = 1000 / opts.ratePerSecond;
    this.tolerance = Math.max(0, opts.burst - 1) * this.interval;
    this.clock = opts.clock;
    if (opts.shape === 'window') this.ring = new Float64Array(Math.max(1, Math.floor(opts.ratePerSecond))).fill(-Infinity);
  }

  /** Milliseconds the caller must wait before sending; the slot is reserved on return. */
  reserve(): number {
    const now = this.clock.now();
    const ring = this.ring;
    if (ring) {
      // The request `ring.length` places back must be a second old: no sliding second holds more.
      const allowedAt = Math.max(now, ring[this.at] + 1000, this.pausedUntil);
      ring[this.at] = allowedAt;
      this.at = (this.at + 1) % ring.length;
      return allowedAt - now;
    }
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

  /** Stops every caller, not just the one that saw the 429, until `ms` from now; then the steady rate, no burst. */
  pause(ms: number): void {
    const until = this.clock.now() + ms;
    if (until > this.pausedUntil) this.pausedUntil = until;
    if (this.tat < until) this.tat = until;
    const ring = this.ring;
    if (ring) {
      // As if the last second before `until` had been used at the steady rate.
      for (let k = 0; k < ring.length; k++) {
        const i = (this.at + k) % ring.length;
        ring[i] = Math.max(ring[i], until - 1000 + (k + 1) * this.interval);
      }
    }
  }
}
