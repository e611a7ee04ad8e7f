import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDirError } from '../config/paths.js';
import { LocalFileError, TransientError } from '../errors.js';
import { lockHolder as holderOf, takeLock, type HeldLock, type LockOwner } from '../files/owner-lock.js';

/** A held lock: release it once; `lost()` says whether another process took it over meanwhile. */
export type ExportLock = HeldLock;

/**
 * Takes the sidecar lock `<statePath>.lock` (src/files/owner-lock.ts), failing at once when
 * another run holds it: TransientError (exit 7) naming the holder and the lock file. A lock
 * whose holder died (SIGKILL, power loss, a reboot) is taken over: at once when the holder's
 * pid is gone on this host or belongs to a process that started at another time, else once it
 * was not refreshed for 10 s (a holder on another machine of a shared disk).
 */
export async function acquireExportLock(statePath: string, key: string): Promise<ExportLock> {
  return acquire(`${statePath}.lock`, { what: `export state "${key}"`, rule: 'one run per state key at a time' });
}

/**
 * Takes the lock of an output file, keyed by its device and inode (`<config dir>/exports/files/`),
 * so no two runs (two state keys, or a one-off export) write one file whatever path names it.
 */
export async function acquireFileLock(configDir: string, fileId: string, path: string): Promise<ExportLock> {
  const base = fileRecordBase(configDir, fileId);
  return acquire(`${base}.lock`, {
    what: `output file ${path}`,
    rule: 'one run per output file at a time, whatever its state key',
  });
}

/** `<config dir>/exports/files/<dev>-<ino>`: where an output file's lock and owner live (the directory made). */
export function fileRecordBase(configDir: string, fileId: string): string {
  const dir = join(configDir, 'exports', 'files');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw LocalFileError.from(err, 'lock directory', dir) ?? configDirError(err, dir, { dir: configDir }) ?? err;
  }
  return join(dir, fileId.replace(/[^0-9a-z]+/gi, '-'));
}

/** The holder of a key's lock, if one is held: not a dead process of this host (its lock is taken over). */
export function lockHolder(statePath: string): LockOwner | undefined {
  try {
    return holderOf(`${statePath}.lock`);
  } catch {
    return undefined;
  }
}

/** What a lock guards, for the message of a run that finds it held. */
interface Holding {
  what: string;
  rule: string;
}

/** Takes a lock file of another kind of run (a contacts sync), with the same rules and messages. */
export async function acquire(lockPath: string, key: Holding): Promise<ExportLock> {
  try {
    return takeLock(lockPath, (owner) => heldBy(key, owner, lockPath));
  } catch (err) {
    throw LocalFileError.from(err, 'lock', lockPath) ?? err;
  }
}

function heldBy(key: Holding, owner: LockOwner | undefined, lockPath: string): TransientError {
  const who = owner
    ? `pid ${owner.pid} on ${owner.hostname}${owner.startedAt ? `, since ${owner.startedAt}` : ''}`
    : 'another process';
  return new TransientError(`another run holds the lock of ${key.what} (${who})`, {
    code: 'locked',
    hint:
      `${key.rule}: wait for it to finish (a lock left by a killed run is taken over); ` +
      `if no cnv run is that process, remove ${lockPath}`,
  });
}
