import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TransientError } from '../errors.js';

/**
 * Takes `.<report>.cnv-lock` beside a report file, so that no two runs write one report: a
 * second run fails at once (exit 7) naming the holder's pid. A lock whose process is gone
 * (kill -9) is taken over. Returns the release.
 */
export async function lockReport(path: string): Promise<() => Promise<void>> {
  const lock = join(dirname(path), `.${basename(path)}.cnv-lock`);
  const mine = `${process.pid} ${randomBytes(4).toString('hex')}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      try {
        await handle.writeFile(mine);
      } finally {
        await handle.close();
      }
      return async () => {
        if ((await readLock(lock)) === mine) await unlink(lock).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = await readLock(lock);
    if (held === undefined) continue; // released meanwhile
    const pid = Number(/^(\d+) /.exec(held)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && isRunning(pid)) {
      throw new TransientError(`another cnv run (pid ${pid}) is writing the report ${path}`, {
        code: 'report_locked',
        hint: `wait for it to end; if no such run exists, remove ${lock}`,
      });
    }
    // Stale: moved aside first, so that of two runs taking it over only one removes it.
    const aside = `${lock}.${process.pid}-${randomBytes(4).toString('hex')}.stale`;
    if (!(await rename(lock, aside).then(() => true, () => false))) continue;
    // Another run took it over in between and this moved its fresh lock: put that one back.
    if ((await readLock(aside)) !== held) await link(aside, lock).catch(() => {});
    await unlink(aside).catch(() => {});
  }
  throw new TransientError(`cannot lock the report ${path}: other runs keep taking it`, { code: 'report_locked' });
}

/** The lock's text; '' for something that is not a lock file (a link, a directory); undefined when there is none. */
async function readLock(lock: string): Promise<string | undefined> {
  try {
    const handle = await open(lock, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : '';
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
