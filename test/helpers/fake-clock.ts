import type { Clock } from '../../src/clock.js';

/** A clock that only moves when someone sleeps on it; records every sleep. */
export class FakeClock implements Clock {
  t = 0;
  sleeps: number[] = [];

  now(): number {
    return this.t;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
  }
}
