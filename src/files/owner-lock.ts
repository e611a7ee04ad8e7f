import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { CliError, ExitCode } from '../errors.js';
import { ownerLiveness, parseOwner, thisProcess, type ProcessOwner } from '../lib/process-owner.js';
import { readRegularFileSync } from '../lib/regular-file.js';
import { removeDeadTemps, tempPathBeside } from './temp-files.js';

/** Who holds a lock: the content of the lock file (src/lib/process-owner.ts, the shape a rate lease has too). */
export type LockOwner = ProcessOwner;

/** A held lock: release it once; `lost()` says whether it is no longer this process's. */
export interface HeldLock {
  release(): Promise<void>;
  lost(): Error | undefined;
}

/** A lock whose holder cannot be checked (another host) is stale once not refreshed for this long. */
const STALE_MS = 10_000;
const REFRESH_MS = 3_000;
const TAKE_ATTEMPTS = 5;

// The one lock of cnv (export state and output file, batch report): a file at `path` holding
// its owner as JSON (pid, host, start time). It is written complete under a name of its own
// (a temporary file beside it, src/files/temp-files.ts) and hard-linked into place: link()
// fails if anything is at `path` (a file, a directory, a symlink, which is never followed), so taking is atomic and a lock never
// exists without its owner, even when its maker is killed. The holder refreshes its mtime, so a
// holder on another machine of a shared disk is recognisably gone once that stops.
//
// A lock is stale, and taken over, when its pid is gone on this host (at once), or when it is
// of another host (or holds no owner) and was not refreshed for STALE_MS. A pid of this host
// that is alive may belong to another process by now (a reboot, a container restart): the
// lock records its holder's start time (Linux), and a process that started at another time is
// not its holder; where no start time can be compared, a lock not refreshed for STALE_MS is
// stale too (its holder refreshes it every REFRESH_MS). Something that is not a file or a
// directory (a symlink, a fifo) is no lock: replaced at once. A directory, or a file that does
// not name its owner as this version writes it, is a lock of another format (docs/guarantees.md,
// "Compatibility"): refused, never judged or taken over (`lock_unrecognised`, exit 2).
// Taking over renames the stale lock aside and checks that what moved is the lock judged stale
// (its text, unique by a random token); if another run took it over in between, its lock is put
// back and this run is refused. A holder checks the text at `path` is still its own in lost().

/**
 * Takes the lock at `path` for this process, or throws `heldBy(owner)` at once when another
 * live process holds it (owner undefined: it changed hands on every attempt), and
 * `lock_unrecognised` (exit 2) for a lock of another format. Errors of the file system (EACCES,
 * ENOSPC...) are thrown as they are.
 */
export function takeLock(path: string, heldBy: (owner: LockOwner | undefined) => Error): HeldLock {
  removeDeadTemps(path);
  const making = tempPathBeside(path);
  // The token makes this lock's text unique: what is at `path` is this lock if it reads the same
  // (an inode number is no identity: a file system reuses it as soon as a file is removed).
  const owner = { ...thisProcess(), token: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(owner)}\n`;
  fs.writeFileSync(making, text, { flag: 'wx', mode: 0o644 });
  try {
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      try {
        fs.linkSync(making, path);
        return hold(path, text);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const found = inspect(path);
      if (!found) continue; // released meanwhile
      if (found.foreign) throw unrecognised(path);
      if (!found.stale) throw heldBy(found.owner);
      takeAside(path, found.identity);
    }
    throw heldBy(inspect(path)?.owner);
  } finally {
    fs.rmSync(making, { force: true });
  }
}

/** The live holder of the lock at `path`; undefined when there is none, it is stale, or of another format. */
export function lockHolder(path: string): LockOwner | undefined {
  const found = inspect(path);
  return found && !found.stale && !found.foreign ? found.owner : undefined;
}

interface Found {
  owner: LockOwner | undefined;
  stale: boolean;
  /** A directory, or a file whose text is not an owner as this version writes it. */
  foreign: boolean;
  /** What tells this lock from a later one at the same path. */
  identity: string;
}

function inspect(path: string): Found | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return judge(path, stat);
}

/** What the lock at `path` is; undefined when it went meanwhile. An unreadable lock file (EACCES) throws. */
function judge(path: string, stat: fs.Stats): Found | undefined {
  const inode = `${stat.dev}:${stat.ino}`;
  if (stat.isDirectory()) return { owner: undefined, stale: false, foreign: true, identity: `directory ${inode}` };
  if (!stat.isFile()) return { owner: undefined, stale: true, foreign: false, identity: `other ${inode}` };
  let text: string;
  try {
    text = readRegularFileSync(path, { nofollow: true }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const owner = parseOwner(text);
  if (!owner) return { owner: undefined, stale: false, foreign: true, identity: `file ${text}` };
  const liveness = ownerLiveness(owner);
  const stale = liveness === 'gone' || (liveness === 'unknown' && Date.now() - stat.mtimeMs > STALE_MS);
  return { owner, stale, foreign: false, identity: `file ${text}` };
}

/** A lock of another format (an earlier cnv's, or not cnv's at all): whether its holder lives cannot be told. */
function unrecognised(path: string): CliError {
  return new CliError(`${path} is not a lock this version of cnv writes: whether a run still holds it cannot be told`, {
    exitCode: ExitCode.usage,
    code: 'lock_unrecognised',
    hint: `if no cnv run uses it, remove it (rm -r ${path}) and run again`,
  });
}

/**
 * A held lock's text, never through a symlink, nor from a FIFO or a device (never waited on);
 * undefined when it cannot be read.
 */
function readText(file: string): string | undefined {
  try {
    return readRegularFileSync(file, { nofollow: true }).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Removes the stale lock judged; if what is at `path` by now is another (a run took it over meanwhile), it stays. */
function takeAside(path: string, judged: string): void {
  const aside = tempPathBeside(path);
  try {
    fs.renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (judge(aside, fs.lstatSync(aside))?.identity !== judged) {
    // Another run's fresh lock: put back, unless yet another run has taken the place meanwhile
    // (then the run whose lock this was finds it lost before it commits anything more).
    try {
      fs.linkSync(aside, path);
    } catch {
      // Left as it is.
    }
  }
  fs.rmSync(aside, { force: true });
}

function hold(path: string, text: string): HeldLock {
  let lostWith: Error | undefined;
  let released = false;
  const check = () => {
    if (lostWith || released) return;
    const now = readText(path);
    if (now !== text) lostWith = new Error(now === undefined ? 'it is gone' : 'another process took it over');
  };
  // The refresh that tells other hosts this holder is alive.
  const timer = setInterval(() => {
    check();
    if (lostWith) return clearInterval(timer);
    const now = new Date();
    try {
      fs.lutimesSync(path, now, now);
    } catch {
      // Checked again on the next beat and by lost().
    }
  }, REFRESH_MS);
  timer.unref();
  return {
    lost() {
      check();
      return lostWith;
    },
    async release() {
      if (released) return;
      check();
      released = true;
      clearInterval(timer);
      if (!lostWith) fs.rmSync(path, { force: true });
    },
  };
}
