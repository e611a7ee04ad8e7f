import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isAlive } from '../lib/process-alive.js';

// `.<name>.cnv-<pid>-<hex>.tmp`: hidden, beside the file it will replace (or the lock it will be
// linked to), naming its maker. The one form of cnv's temporary files that a kill may leave, and
// the one sweep of them: an export's output, a batch report, an owner lock.
const TEMP = /^\.(.+)\.cnv-(\d+)-[0-9a-f]{8}\.tmp$/;

/** A new temporary path beside `target` for this process. */
export function tempPathBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.cnv-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Removes the temporary files beside `target` (made by tempPathBeside) left by processes of this
 * host that are gone (a kill); those of a running process stay. Only files: a directory by such
 * a name is not cnv's and stays, and unlink removes a symbolic link itself, never what it points
 * to. Best effort: what cannot be read or removed stays.
 */
export function removeDeadTemps(target: string): void {
  const dir = dirname(target);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || m[1] !== basename(target) || isAlive(Number(m[2]))) continue;
    try {
      rmSync(join(dir, name), { force: true });
    } catch {
      // A directory, or no permission: left as it is.
    }
  }
}
