import { basename, dirname, join } from 'node:path';
import { TransientError } from '../errors.js';
import { takeLock } from '../files/owner-lock.js';

/**
 * Takes `.<report>.cnv-lock` beside a report file (src/files/owner-lock.ts), so that no two runs
 * write one report: a second run fails at once (exit 7) naming the holder's pid. A lock whose
 * process is gone (kill -9) is taken over. Returns the release.
 */
export async function lockReport(path: string): Promise<() => Promise<void>> {
  const lock = join(dirname(path), `.${basename(path)}.cnv-lock`);
  const held = takeLock(
    lock,
    (owner) =>
      new TransientError(`another cnv run (pid ${owner?.pid ?? 'unknown'}) is writing the report ${path}`, {
        code: 'report_locked',
        hint: `wait for it to end; if no such run exists, remove ${lock}`,
      }),
  );
  return () => held.release();
}
