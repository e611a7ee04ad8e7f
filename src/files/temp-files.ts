import { randomBytes } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from '../lib/process-alive.js';

// `.<name>.cnv-<pid>-<hex>.tmp`: hidden, beside the file it will replace, naming its maker.
const TEMP = /^\.(.+)\.cnv-(\d+)-[0-9a-f]{8}\.tmp$/;

/** A new temporary path beside `target` for this process. */
export function tempPathBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.cnv-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

/** Removes the temporary files of `name` in `dir` left by processes of this host that are gone (a kill). */
export async function removeDeadTemps(dir: string, name: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const n of names) {
    const m = TEMP.exec(n);
    if (m && m[1] === name && !isAlive(Number(m[2]))) await unlink(join(dir, n)).catch(() => {});
  }
}
