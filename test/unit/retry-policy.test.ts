import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryable, neverSent, parseRetryAfter } from '../../src/http/retry-policy.js';

describe('backoffDelay', () => {
  it('grows exponentially from 0.5 s and is capped at 20 s', () => {
    const max = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((r) => backoffDelay(r, max))).toEqual([
      499, 999, 1999, 3999, 7999, 15999, 19999, 19999,
    ]);
  });

  it('is full jitter: anywhere from 0 up to the ceiling', () => {
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(3, () => 0.5)).toBe(1000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(['2'], now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
  });
  it('reads an HTTP-date', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('isRetryable', () => {
  it('retries safe requests on 408, 429, 5xx gateway errors and network failures', () => {
    for (const status of [408, 429, 500, 502, 503, 504]) expect(isRetryable({ status }, 'safe')).toBe(true);
    for (const networkCode of ['ECONNRESET', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'ECONNREFUSED']) {
      expect(isRetryable({ networkCode }, 'safe')).toBe(true);
    }
  });

  it('never retries other 4xx', () => {
    for (const status of [400, 401, 403, 404, 409, 422]) expect(isRetryable({ status }, 'safe')).toBe(false);
    expect(isRetryable({ status: 501 }, 'safe')).toBe(false);
  });

  it('retries an unsafe request only when it provably never reached the server', () => {
    expect(isRetryable({ status: 429 }, 'unsafe')).toBe(true);
    expect(isRetryable({ networkCode: 'ECONNREFUSED' }, 'unsafe')).toBe(true);
    expect(isRetryable({ networkCode: 'ENOTFOUND' }, 'unsafe')).toBe(true);
    expect(isRetryable({ status: 500 }, 'unsafe')).toBe(false);
    expect(isRetryable({ status: 503 }, 'unsafe')).toBe(false);
    expect(isRetryable({ networkCode: 'ECONNRESET' }, 'unsafe')).toBe(false);
    expect(isRetryable({ networkCode: 'ETIMEDOUT' }, 'unsafe')).toBe(false);
    expect(neverSent({ networkCode: 'UND_ERR_SOCKET' })).toBe(false);
  });
});
