import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { BusinessRateLimiter } from '../../src/emulator/business-rate-limiter.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true, rateLimit: 5 });
});
afterAll(async () => {
  await emu.close();
});

describe('rate limit (emulator with rateLimit 5)', () => {
  it('answers 429 rate_limited with Retry-After past the limit, per business', async () => {
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => call(emu, 'GET', '/v2/contacts?email=ada@example.com')),
    );
    const limited = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status === 200).length).toBeLessThanOrEqual(6);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    for (const r of limited) {
      expectError(r, 429, 'rate_limited');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    // The limited key shares business "acme" and so its budget...
    expect((await call(emu, 'GET', '/v2/contacts?email=ada@example.com', { key: DEMO_KEYS.limited })).status).toBe(429);
    // ...while business "basic" has its own.
    expect(
      (await call(emu, 'POST', '/v2/contacts', { key: DEMO_KEYS.basic, body: { email: 'b@example.com' } })).status,
    ).toBe(200);
    const stats = (await admin(emu, 'GET', '/_emulator/stats')).json;
    expect(stats.rateLimited).toBe(limited.length + 1);
  });

  it('admits requests again after Retry-After', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(emu, 'GET', '/v2/contacts?email=ada@example.com')).status).toBe(200);
  });
});

describe('BusinessRateLimiter', () => {
  it('is a token bucket refilled at the rate', () => {
    let now = 0;
    const limiter = new BusinessRateLimiter(200, () => now);
    let admitted = 0;
    for (let i = 0; i < 300; i++) if (limiter.take('acme')) admitted++;
    expect(admitted).toBe(200);
    expect(limiter.take('other')).toBe(true);
    now = 500; // half a second refills 100 tokens
    admitted = 0;
    for (let i = 0; i < 300; i++) if (limiter.take('acme')) admitted++;
    expect(admitted).toBe(100);
  });

  it('admits a client paced at exactly the rate', () => {
    let now = 0;
    const limiter = new BusinessRateLimiter(200, () => now);
    for (let i = 0; i < 2000; i++) {
      now = i * 5;
      expect(limiter.take('acme')).toBe(true);
    }
  });

  it('is disabled at 0', () => {
    const limiter = new BusinessRateLimiter(0, () => 0);
    for (let i = 0; i < 1000; i++) expect(limiter.take('acme')).toBe(true);
  });
});
