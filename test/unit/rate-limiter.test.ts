import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { FakeClock } from '../helpers/fake-clock.js';

describe('RateLimiter', () => {
  it('lets a small burst through, then spaces requests at the steady rate', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 100, burst: 3, clock });
    const waits = Array.from({ length: 6 }, () => limiter.reserve());
    expect(waits).toEqual([0, 0, 0, 10, 20, 30]);
  });

  it('never lets more than rate + burst through in any one-second window', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 195, burst: 3, clock });
    const sendTimes: number[] = [];
    for (let i = 0; i < 1000; i++) sendTimes.push(clock.t + limiter.reserve());
    for (let i = 0; i < sendTimes.length; i++) {
      const inWindow = sendTimes.filter((t) => t >= sendTimes[i] && t < sendTimes[i] + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(198);
    }
    // and sustains the steady rate
    expect(sendTimes[999] - sendTimes[0]).toBeLessThan((1000 / 195) * 1000 + 1);
  });

  it('holdUntil: callers wait for the hold to settle (either way, or its bound) before they reserve; an abort meanwhile is seen when it ends', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 100, burst: 3, clock });
    let release!: () => void;
    limiter.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    const taken: string[] = [];
    const first = limiter.take().then(() => taken.push('first'));
    const stop = new AbortController();
    const stopped = limiter.take(stop.signal);
    stopped.catch(() => {});
    await new Promise((r) => setTimeout(r, 10));
    expect(taken).toEqual([]);
    stop.abort(new Error('stopped'));
    release();
    await first;
    expect(taken).toEqual(['first']);
    await expect(stopped).rejects.toThrow('stopped');
    // A hold that fails, or never settles, still ends: at its bound.
    limiter.holdUntil(Promise.reject(new Error('no lease')));
    await limiter.take();
    limiter.holdUntil(new Promise(() => {}), 30);
    const started = Date.now();
    await limiter.take();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('serves callers first come, first served', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 1, clock });
    const waits = [limiter.reserve(), limiter.reserve(), limiter.reserve()];
    expect(waits).toEqual([0, 100, 200]);
  });

  it('refills after an idle spell but never beyond the burst', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 2, clock });
    limiter.reserve();
    limiter.reserve();
    clock.t = 10_000;
    expect([limiter.reserve(), limiter.reserve(), limiter.reserve()]).toEqual([0, 0, 100]);
  });

  it('a pause (after a 429) holds back every caller, including those already waiting', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ ratePerSecond: 100, burst: 1, clock });
    limiter.reserve();
    limiter.pause(2000);
    expect(limiter.reserve()).toBeGreaterThanOrEqual(2000);
    // a caller that reserved before the pause re-checks after its sleep
    const clock2 = new FakeClock();
    const l2 = new RateLimiter({ ratePerSecond: 100, burst: 1, clock: clock2 });
    l2.reserve();
    const waiting = l2.take(); // reserved for t=10 before the pause
    l2.pause(500);
    await waiting;
    expect(clock2.t).toBeGreaterThanOrEqual(500);
  });

  it('rejects a non-positive rate', () => {
    expect(() => new RateLimiter({ ratePerSecond: 0, burst: 1, clock: new FakeClock() })).toThrow(RangeError);
  });
});
