import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { RateShare } from '../../src/http/rate-share.js';
import { FakeClock } from '../helpers/fake-clock.js';

const account = 'sk_live_demo@127.0.0.1:4010';
const shares: RateShare[] = [];

async function join2(
  configDir: string,
  acct = account,
  onShared?: (info: { peers: number; rate: number; dir: string }) => void,
) {
  const limiter = new RateLimiter({ ratePerSecond: 195, burst: 3, clock: new FakeClock() });
  const share = await RateShare.join({
    configDir,
    account: acct,
    limiter,
    fullRate: 195,
    heartbeatMs: 10,
    staleMs: 300,
    onShared,
  });
  shares.push(share);
  return { limiter, share };
}

/** Polls until `check` holds (bounded: the heartbeat is 10 ms, the stale age 300 ms). */
async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Keeps a limiter "sending" (as a process with requests under way). */
function keepSending(limiter: RateLimiter): () => void {
  const timer = setInterval(() => limiter.reserve(), 20);
  return () => clearInterval(timer);
}

afterEach(async () => {
  for (const s of shares.splice(0)) await s.stop();
});

describe('RateShare', () => {
  it('a process alone keeps the full rate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const { limiter, share } = await join2(dir);
    expect(share.peers).toBe(1);
    expect(limiter.rate).toBeCloseTo(195);
  });

  it('sending processes of one account split the rate; a stopped one gives its share back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const a = await join2(dir);
    const b = await join2(dir);
    const stops = [keepSending(a.limiter), keepSending(b.limiter)];
    // The one that joined second knows of the first at once; the first learns within a heartbeat.
    expect(b.limiter.rate).toBeCloseTo(97.5);
    await until(() => Math.abs(a.limiter.rate - 97.5) < 0.01);
    const c = await join2(dir);
    stops.push(keepSending(c.limiter));
    await until(() => [a, b, c].every((p) => Math.abs(p.limiter.rate - 65) < 0.01));
    await c.share.stop();
    await until(() => [a, b].every((p) => Math.abs(p.limiter.rate - 97.5) < 0.01));
    stops.forEach((s) => s());
  });

  it('another account, or another server, does not share', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    await join2(dir);
    const other = await join2(dir, 'sk_live_other@127.0.0.1:4010');
    const elsewhere = await join2(dir, 'sk_live_demo@api.example.com');
    expect(other.limiter.rate).toBeCloseTo(195);
    expect(elsewhere.limiter.rate).toBeCloseTo(195);
  });

  it("a killed process's lease stops counting once stale, and a long-dead one is removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const a = await join2(dir);
    const leaseDir = join(dir, 'rate', readdirSync(join(dir, 'rate'))[0]);
    // A lease a SIGKILLed process of another host left (its process cannot be looked up): never renewed again.
    const dead = join(leaseDir, '999999-deadbeef.lease');
    writeFileSync(
      dead,
      JSON.stringify({ pid: 999999, hostname: 'another-host.invalid', startedAt: new Date().toISOString() }),
    );
    const stop = keepSending(a.limiter);
    await until(() => Math.abs(a.limiter.rate - 97.5) < 0.01);
    await until(() => Math.abs(a.limiter.rate - 195) < 0.01);
    const old = new Date(Date.now() - 60_000);
    utimesSync(dead, old, old);
    await until(() => !readdirSync(leaseDir).includes('999999-deadbeef.lease'));
    stop();
  });

  it('an idle process stops renewing, so the sending one gets the whole rate; sending again takes its share back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const a = await join2(dir);
    const b = await join2(dir);
    const stopA = keepSending(a.limiter);
    await until(() => Math.abs(a.limiter.rate - 97.5) < 0.01);
    // b sends nothing: its lease lapses.
    await until(() => Math.abs(a.limiter.rate - 195) < 0.01);
    const stopB = keepSending(b.limiter);
    await until(() => Math.abs(a.limiter.rate - 97.5) < 0.01 && Math.abs(b.limiter.rate - 97.5) < 0.01);
    stopA();
    stopB();
  });

  it('the lease directory names neither the key nor the URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    await join2(dir);
    const [name] = readdirSync(join(dir, 'rate'));
    expect(name).toMatch(/^[0-9a-f]{24}$/);
  });

  it('leases renewed "in the future" (a clock set back since) or left by a process gone do not count, and are removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const a = await join2(dir);
    const leaseDir = join(dir, 'rate', readdirSync(join(dir, 'rate'))[0]);
    const stop = keepSending(a.limiter);
    const hour = new Date(Date.now() + 3_600_000);
    // 21 leases of killed processes, written while the clock was an hour ahead.
    const planted = Array.from({ length: 21 }, (_, i) => join(leaseDir, `${2147480000 + i}-0000000${i % 10}.lease`));
    for (const [i, path] of planted.entries()) {
      writeFileSync(
        path,
        JSON.stringify({ pid: 2147480000 + i, hostname: hostname(), startedAt: new Date().toISOString() }),
      );
      utimesSync(path, hour, hour);
    }
    // Before: every one of them counted until the clock caught up: 195 / 22 requests/s.
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10));
      expect(a.limiter.rate).toBeCloseTo(195);
    }
    await until(() => planted.every((p) => !existsSync(p)));
    // A live process's lease (this one's pid) still counts.
    writeFileSync(
      join(leaseDir, `${process.pid}-abcdef01.lease`),
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() }),
    );
    await until(() => Math.abs(a.limiter.rate - 97.5) < 0.01);
    stop();
  });

  it('a lease file that does not name its process as this cnv writes it is not counted, and is left until it is old', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const a = await join2(dir);
    const leaseDir = join(dir, 'rate', readdirSync(join(dir, 'rate'))[0]);
    const stop = keepSending(a.limiter);
    // Fresh, of another format (a pid alone, as no released cnv ever wrote; the owner as an earlier
    // build wrote it, `host` where an owner lock has `hostname`, of this live process), or not yet written.
    const earlier = JSON.stringify({ pid: process.pid, host: hostname() });
    const foreign = ['2147480000\n', '', '{"pid":"12"}', earlier].map((text, i) => {
      const path = join(leaseDir, `${2147480000 + i}-0000000${i}.lease`);
      writeFileSync(path, text);
      return path;
    });
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10));
      expect(a.limiter.rate).toBeCloseTo(195);
    }
    expect(foreign.every((p) => existsSync(p))).toBe(true);
    // Old ones go, as every lease not renewed for 30 stale ages does.
    const old = new Date(Date.now() - 60_000);
    for (const path of foreign) utimesSync(path, old, old);
    await until(() => foreign.every((p) => !existsSync(p)));
    stop();
  });

  it('says once, when another process first lowers the rate, how many share it and where the leases are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
    const told: Array<{ peers: number; rate: number; dir: string }> = [];
    const a = await join2(dir, account, (info) => told.push(info));
    const stopA = keepSending(a.limiter);
    await new Promise((r) => setTimeout(r, 50));
    expect(told).toEqual([]);
    const b = await join2(dir);
    const stopB = keepSending(b.limiter);
    await until(() => told.length > 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(told).toEqual([{ peers: 2, rate: 97.5, dir: join(dir, 'rate', readdirSync(join(dir, 'rate'))[0]) }]);
    stopA();
    stopB();
  });

  it('a lease directory (or rate/) that is a symbolic link is not followed: no lease is written there, the rate stays whole', async () => {
    for (const linked of ['rate', 'account']) {
      const dir = mkdtempSync(join(tmpdir(), 'cnv-rate-'));
      const elsewhere = mkdtempSync(join(tmpdir(), 'cnv-elsewhere-'));
      if (linked === 'rate') symlinkSync(elsewhere, join(dir, 'rate'));
      else {
        // Made by a first process, then replaced by a link.
        const first = await join2(dir);
        const name = readdirSync(join(dir, 'rate'))[0];
        await first.share.stop();
        const { rmSync } = await import('node:fs');
        rmSync(join(dir, 'rate', name), { recursive: true });
        symlinkSync(elsewhere, join(dir, 'rate', name));
      }
      mkdirSync(join(elsewhere, 'x'), { recursive: true });
      const a = await join2(dir);
      const stop = keepSending(a.limiter);
      await new Promise((r) => setTimeout(r, 60));
      expect(a.limiter.rate).toBeCloseTo(195);
      expect(readdirSync(elsewhere, { recursive: true }).filter((n) => String(n).endsWith('.lease'))).toEqual([]);
      expect(lstatSync(join(dir, 'rate')).isSymbolicLink()).toBe(linked === 'rate');
      stop();
    }
  });
});
