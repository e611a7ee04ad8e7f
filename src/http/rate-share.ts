import { createHash, randomBytes } from 'node:crypto';
import { lstat, lutimes, mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ownerLiveness, parseOwner, thisProcess, type ProcessOwner } from '../lib/process-owner.js';
import { readRegularFile } from '../lib/regular-file.js';
import type { RateLimiter } from './rate-limiter.js';

interface RateShareOptions {
  /** The config directory; leases live in `<dir>/rate/<account>/`. */
  configDir: string;
  /**
   * What shares one limit: the base URL and the key, given masked (`sk_live_<key_id>_****`); only
   * a hash of them names the lease directory.
   */
  /** The account's identity (src/config/account-identity.ts): never the key. */
  account: string;
  limiter: RateLimiter;
  /** The rate a process alone may use. */
  fullRate: number;
  /** How often a sending process renews its lease and counts the others (ms). */
  heartbeatMs?: number;
  /** A lease not renewed for this long belongs to a killed or idle process and is not counted (ms). */
  staleMs?: number;
  /** Wall clock (lease ages are file times). */
  now?: () => number;
  /**
   * Told once, the first time another process's lease lowers this one's rate: how many share it,
   * the new rate, where the leases are.
   */
  onShared?: (info: { peers: number; rate: number; dir: string }) => void;
}

const LEASE = '.lease';
/** A renewal a little ahead of this clock (a file system's own time) still counts; further ahead is a clock that went back. */
const FUTURE_SLACK_MS = 1_000;

/**
 * Splits one account's request rate between the cnv processes of this machine that are sending.
 * Each sending process keeps a lease file (renewed by touching it every `heartbeatMs`) and runs at
 * fullRate / (live leases). A process that stops sending stops renewing, so after `staleMs` its
 * share goes back to the others; a killed one's too, with no daemon and no lock. A lease names
 * its process (pid, host, start time): one of this host whose process is gone counts no more,
 * whatever its time says, and a renewal time in the future (a clock set back since) is not
 * counted either, so a clock step cannot throttle a run. A process alone sees only its own
 * lease and keeps the full rate. Best effort: if the directory cannot be used (or `rate/` or
 * its account directory is a symbolic link, which is never followed), the process keeps the
 * full rate, as before processes shared anything.
 */
export class RateShare {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private busy = false;
  private peersSeen = 1;
  /** Wall time of this process's last reservation. */
  private lastSent = -Infinity;
  private told = false;

  private constructor(
    private readonly dir: string,
    private readonly file: string,
    private readonly opts: Required<Omit<RateShareOptions, 'configDir' | 'account' | 'onShared'>> &
      Pick<RateShareOptions, 'onShared'>,
    private readonly rateDir: string,
  ) {}

  /** Takes a lease and sets the limiter's rate to this process's share; resolves once the share is known. */
  static async join(options: RateShareOptions): Promise<RateShare> {
    const id = createHash('sha256').update(options.account).digest('hex').slice(0, 24);
    const rateDir = join(options.configDir, 'rate');
    const dir = join(rateDir, id);
    const opts = { heartbeatMs: 250, staleMs: 2_000, now: Date.now, ...options };
    const share = new RateShare(
      dir,
      join(dir, `${process.pid}-${randomBytes(4).toString('hex')}${LEASE}`),
      opts,
      rateDir,
    );
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
      // Nothing is read or written through a link someone put where cnv keeps its leases.
      for (const dir of [this.rateDir, this.dir])
        if ((await lstat(dir).catch(() => undefined))?.isSymbolicLink()) throw new Error(`${dir} is a symbolic link`);
      if (sending) await this.renew();
      // Stopped while renewing: the lease it may have written again would outlive the run.
      if (this.stopped) return void (await unlink(this.file).catch(() => {}));
      const { live, own } = await this.countLive(now(), staleMs);
      // The share this process would have if it sent now, itself counted once.
      this.peersSeen = Math.max(1, live + (own ? 0 : 1));
      if (this.stopped) return;
      limiter.setRate(fullRate / this.peersSeen);
      if (this.peersSeen > 1 && !this.told) {
        this.told = true;
        this.opts.onShared?.({ peers: this.peersSeen, rate: fullRate / this.peersSeen, dir: this.dir });
      }
    } catch {
      // Best effort: an unusable directory leaves the rate as it is.
    } finally {
      this.busy = false;
    }
  }

  private async renew(): Promise<void> {
    const t = new Date(this.opts.now());
    await lutimes(this.file, t, t).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // Its process, as an owner lock names its holder, so that its life ends with that process's on this host.
      await writeFile(this.file, `${JSON.stringify(thisProcess())}\n`, { flag: 'wx', mode: 0o600 });
    });
  }

  /**
   * Leases renewed within `staleMs` (and not in the future) whose process, when it is of this
   * host, is still running; leases dead for much longer, or of a process gone, are removed. A
   * file that does not name its process as this cnv writes it (src/lib/process-owner.ts) is not
   * counted (cnv 0.1.0 was never released: no lease of another format, such as the `host` of
   * before, is judged by its time as if it were one).
   */
  private async countLive(now: number, staleMs: number): Promise<{ live: number; own: boolean }> {
    let live = 0;
    let own = false;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!name.endsWith(LEASE)) continue;
      const path = join(this.dir, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      const age = now - info.mtimeMs;
      const mine = path === this.file;
      const owner = mine ? undefined : await leaseOwner(path);
      if (owner && ownerLiveness(owner) === 'gone') {
        await unlink(path).catch(() => {});
      } else if ((mine || owner) && age < staleMs && age >= -FUTURE_SLACK_MS) {
        live++;
        own ||= mine;
      } else if (Math.abs(age) > staleMs * 30 && !mine) {
        await unlink(path).catch(() => {});
      }
    }
    return { live, own };
  }
}

/** The process a lease names; undefined for a file that does not hold a lease of this format (one being written, too). */
async function leaseOwner(path: string): Promise<ProcessOwner | undefined> {
  const text = await readRegularFile(path, { nofollow: true }).catch(() => undefined);
  return text && parseOwner(text.toString('utf8'));
}
