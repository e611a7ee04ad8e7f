import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RateLimiter } from './rate-limiter.js';

export interface RateShareOptions {
  /** The config directory; leases live in `<dir>/rate/<account>/`. */
  configDir: string;
  /**
   * What shares one limit: the base URL and the key, given masked (`sk_live_<key_id>_****`); only
   * a hash of them names the lease directory.
   */
  account: { baseUrl: string; keyId: string };
  limiter: RateLimiter;
  /** The rate a process alone may use. */
  fullRate: number;
  /** How often a sending process renews its lease and counts the others (ms). */
  heartbeatMs?: number;
  /** A lease not renewed for this long belongs to a killed or idle process and is not counted (ms). */
  staleMs?: number;
  /** Wall clock (lease ages are file times). */
  now?: () => number;
}

const LEASE = '.lease';

/**
 * Splits one account's request rate between the cnv processes of this machine that are sending.
 * Each sending process keeps a lease file (renewed by touching it every `heartbeatMs`) and runs at
 * fullRate / (live leases). A process that stops sending stops renewing, so after `staleMs` its
 * share goes back to the others; a killed one's too, with no daemon and no lock. A process alone
 * sees only its own lease and keeps the full rate. Best effort: if the directory cannot be used,
 * the process keeps the full rate, as before processes shared anything.
 */
export class RateShare {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private busy = false;
  private peersSeen = 1;
  /** Wall time of this process's last reservation. */
  private lastSent = -Infinity;

  private constructor(
    private readonly dir: string,
    private readonly file: string,
    private readonly opts: Required<Omit<RateShareOptions, 'configDir' | 'account'>>,
  ) {}

  /** Takes a lease and sets the limiter's rate to this process's share; resolves once the share is known. */
  static async join(options: RateShareOptions): Promise<RateShare> {
    const id = createHash('sha256').update(`${options.account.baseUrl}\n${options.account.keyId}`).digest('hex').slice(0, 24);
    const dir = join(options.configDir, 'rate', id);
    const opts = { heartbeatMs: 250, staleMs: 2_000, now: Date.now, ...options };
    const share = new RateShare(dir, join(dir, `${process.pid}-${randomBytes(4).toString('hex')}${LEASE}`), opts);
    share.lastSent = opts.now();
    opts.limiter.onReserve = () => {
      const t = opts.now();
      // A process that went quiet (its lease lapsed) counts itself in again as it sends again.
      if (t - share.lastSent > opts.staleMs / 2) void share.tick(true);
      share.lastSent = t;
    };
    await share.tick(true);
    share.timer = setInterval(() => void share.tick(false), opts.heartbeatMs);
    share.timer.unref();
    return share;
  }

  /** Live leases at the last count, this process's included. */
  get peers(): number {
    return this.peersSeen;
  }

  /** Gives the share back at once (the lease file is removed). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await unlink(this.file).catch(() => {});
  }

  private async tick(force: boolean): Promise<void> {
    if (this.stopped || (this.busy && !force)) return;
    this.busy = true;
    try {
      const { limiter, now, staleMs, fullRate } = this.opts;
      // Renew only while sending: an idle process's share returns to the others.
      const sending = force || now() - this.lastSent < staleMs / 2;
      if (sending) await this.renew();
      const { live, own } = await this.countLive(now(), staleMs);
      // The share this process would have if it sent now, itself counted once.
      this.peersSeen = Math.max(1, live + (own ? 0 : 1));
      if (!this.stopped) limiter.setRate(fullRate / this.peersSeen);
    } catch {
      // Best effort: an unusable directory leaves the rate as it is.
    } finally {
      this.busy = false;
    }
  }

  private async renew(): Promise<void> {
    const t = new Date(this.opts.now());
    await utimes(this.file, t, t).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(this.file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    });
  }

  /** Leases renewed within `staleMs`; leases dead for much longer are removed on the way. */
  private async countLive(now: number, staleMs: number): Promise<{ live: number; own: boolean }> {
    let live = 0;
    let own = false;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!name.endsWith(LEASE)) continue;
      const path = join(this.dir, name);
      const age = await stat(path).then((s) => now - s.mtimeMs, () => undefined);
      if (age === undefined) continue;
      if (age < staleMs) {
        live++;
        own ||= path === this.file;
      }
      else if (age > staleMs * 30 && path !== this.file) await unlink(path).catch(() => {});
    }
    return { live, own };
  }
}
