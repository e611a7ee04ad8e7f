import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { LocalFileError, TransientError } from '../errors.js';
import { isAlive } from './temp-files.js';

/** Who holds a lock: written inside the lock directory right after it was taken. */
export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** A held lock: release it once; `lost()` says whether another process took it over meanwhile. */
export interface ExportLock {
  release(): Promise<void>;
  lost(): Error | undefined;
}

const STALE_MS = 10_000;
const OWNER_FILE = 'owner.json';

function ownerNow(): LockOwner {
  return { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
}

// proper-lockfile takes a lock with mkdir. Ours makes the directory elsewhere with the owner file
// inside and renames it into place: a lock directory never exists without its owner, even when
// its maker is killed, so a dead holder is always recognisable. Removal is recursive.
const lockFs = {
  ...fs,
  mkdir(path: string, cb: (err: NodeJS.ErrnoException | null) => void) {
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      fs.mkdirSync(tmp);
      fs.writeFileSync(join(tmp, OWNER_FILE), JSON.stringify(ownerNow()));
      fs.renameSync(tmp, path);
      cb(null);
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      const code = (err as NodeJS.ErrnoException).code;
      cb(code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM' ? Object.assign(new Error('lock exists'), { code: 'EEXIST' }) : (err as Error));
    }
  },
  rmdir: (path: string, cb: (err: NodeJS.ErrnoException | null) => void) => fs.rm(path, { recursive: true, force: true }, cb),
  rmdirSync: (path: string) => fs.rmSync(path, { recursive: true, force: true }),
};

type Release = () => Promise<void>;

/**
 * Takes the sidecar lock `<statePath>.lock` (a directory, proper-lockfile), failing at once when
 * another run holds it: TransientError (exit 7) naming the holder's pid. A lock whose holder
 * died (SIGKILL, power loss) is taken over: at once when the holder's pid is gone on this host,
 * else when proper-lockfile finds it stale (not refreshed for 10 s).
 */
export async function acquireExportLock(statePath: string, key: string): Promise<ExportLock> {
  return acquireLock(statePath, `${statePath}.lock`, `export state "${key}"`, 'one run per state key at a time');
}

/**
 * Takes the lock of an output file, keyed by its device and inode (`<config dir>/exports/files/`),
 * so no two runs (two state keys, or a one-off export) write one file whatever path names it.
 */
export async function acquireFileLock(configDir: string, fileId: string, path: string): Promise<ExportLock> {
  const base = fileRecordBase(configDir, fileId);
  return acquireLock(base, `${base}.lock`, `output file ${path}`, 'one run per output file at a time, whatever its state key');
}

/** `<config dir>/exports/files/<dev>-<ino>`: where an output file's lock and owner live (the directory made). */
export function fileRecordBase(configDir: string, fileId: string): string {
  const dir = join(configDir, 'exports', 'files');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw LocalFileError.from(err, 'lock directory', dir) ?? err;
  }
  return join(dir, fileId.replace(/[^0-9a-z]+/gi, '-'));
}

async function acquireLock(file: string, lockPath: string, what: string, rule: string): Promise<ExportLock> {
  removeDeadMakings(lockPath);
  let lostWith: Error | undefined;
  const release = await takeOrTakeOver(file, lockPath, { what, rule }, true, (err) => {
    lostWith = err;
  });
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      if (!lostWith) await release().catch(() => {});
    },
    lost: () => lostWith,
  };
}

/** Takes a lock; one left by a dead holder is removed and taken, a short guard lock serialising takeovers. */
async function takeOrTakeOver(file: string, lockPath: string, key: Holding, guarded: boolean, onCompromised: (err: Error) => void): Promise<Release> {
  const lockfile = await import('proper-lockfile');
  const take = () => lockfile.lock(file, { lockfilePath: lockPath, realpath: false, retries: 0, stale: STALE_MS, fs: lockFs, onCompromised });
  try {
    return await take();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw LocalFileError.from(err, 'lock', lockPath) ?? err;
  }
  const owner = readOwner(lockPath);
  if (!owner || owner.hostname !== hostname() || isAlive(owner.pid)) throw heldBy(key, owner);
  let releaseGuard: Release | undefined;
  if (guarded) {
    releaseGuard = await takeOrTakeOver(`${file}.takeover`, `${lockPath}-takeover`, key, false, () => {}).catch(() => Promise.reject(heldBy(key, owner)));
  }
  try {
    const again = readOwner(lockPath);
    if (again && (again.pid !== owner.pid || again.startedAt !== owner.startedAt)) throw heldBy(key, again);
    lockFs.rmdirSync(lockPath);
    return await take().catch(() => Promise.reject(heldBy(key, readOwner(lockPath))));
  } finally {
    await releaseGuard?.();
  }
}

/** Removes the half-made lock directories (`<lock>.<pid>.<hex>`) of processes of this host that died making them. */
function removeDeadMakings(lockPath: string): void {
  const dir = dirname(lockPath);
  const prefix = `${basename(lockPath)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]{8}$/.exec(name.slice(prefix.length)) : null;
    if (m && !isAlive(Number(m[1]))) fs.rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** The holder of a key's lock, if one is held and known; not a dead process of this host (its lock is taken over). */
export function lockHolder(statePath: string): LockOwner | undefined {
  const owner = fs.existsSync(`${statePath}.lock`) ? readOwner(`${statePath}.lock`) : undefined;
  return owner && owner.hostname === hostname() && !isAlive(owner.pid) ? undefined : owner;
}

/** What a lock guards, for the message of a run that finds it held. */
interface Holding {
  what: string;
  rule: string;
}

function heldBy(key: Holding, owner: LockOwner | undefined): TransientError {
  const who = owner ? `pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt}` : 'a process that has just started';
  return new TransientError(`another run holds the lock of ${key.what} (${who})`, {
    code: 'locked',
    hint: `${key.rule}: wait for it to finish (a lock left by a killed run is taken over)`,
  });
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(join(lockPath, OWNER_FILE), 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' && typeof owner.hostname === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}
