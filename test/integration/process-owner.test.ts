import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeLock } from '../../src/files/owner-lock.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { RateShare } from '../../src/http/rate-share.js';
import { processStartTicks } from '../../src/lib/process-alive.js';
import { ownerLiveness, parseOwner, thisProcess } from '../../src/lib/process-owner.js';
import { FakeClock } from '../helpers/fake-clock.js';

const now = () => new Date().toISOString();

describe('process owner (one shape for owner locks and rate leases)', () => {
  it('an owner lock and a rate lease name their process in the same shape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-owner-'));
    const lock = takeLock(join(dir, 'x.lock'), () => new Error('held'));
    const limiter = new RateLimiter({ ratePerSecond: 195, burst: 3, clock: new FakeClock() });
    const share = await RateShare.join({
      configDir: dir,
      account: 'sk_live_k@127.0.0.1:1',
      limiter,
      fullRate: 195,
    });
    try {
      const leaseDir = join(dir, 'rate', readdirSync(join(dir, 'rate'))[0]);
      const lease = parseOwner(readFileSync(join(leaseDir, readdirSync(leaseDir)[0]), 'utf8'));
      const held = parseOwner(readFileSync(join(dir, 'x.lock'), 'utf8'));
      expect(lease).toBeDefined();
      expect(held).toBeDefined();
      expect(Object.keys(lease!).sort()).toEqual(Object.keys(held!).sort());
      expect({ ...lease, startedAt: 0 }).toEqual({ ...held, startedAt: 0 });
      expect(lease).toMatchObject({ pid: process.pid, hostname: hostname() });
    } finally {
      await share.stop();
      await lock.release();
    }
  });

  it('reads only the shape this version writes: a lock with its token is one, the `host` of earlier leases is not', () => {
    const owner = thisProcess();
    expect(parseOwner(JSON.stringify({ ...owner, token: 'ab12' }))).toEqual(owner);
    expect(parseOwner(JSON.stringify({ pid: process.pid, host: hostname() }))).toBeUndefined();
    expect(parseOwner(JSON.stringify({ pid: process.pid, hostname: hostname() }))).toBeUndefined();
    expect(parseOwner('12\n')).toBeUndefined();
    expect(parseOwner('null')).toBeUndefined();
    expect(parseOwner('')).toBeUndefined();
  });

  it('this process lives; a free pid, or a pid with another start time, is gone; another host or pid 0 cannot be told', () => {
    expect(ownerLiveness(thisProcess())).toBe(processStartTicks(process.pid) === undefined ? 'unknown' : 'alive');
    expect(ownerLiveness({ pid: 2147480000, hostname: hostname(), startedAt: now() })).toBe('gone');
    expect(ownerLiveness({ pid: 999999, hostname: 'another-host.invalid', startedAt: now() })).toBe('unknown');
    expect(ownerLiveness({ pid: 0, hostname: hostname(), startedAt: now() })).toBe('unknown');
    const start = processStartTicks(process.pid);
    if (start !== undefined)
      expect(ownerLiveness({ pid: process.pid, hostname: hostname(), startedAt: now(), procStart: start + 1 })).toBe(
        'gone',
      );
  });
});
