// `promises` is read where used: node:fs/promises loads on first use (~6 ms), and a command
// that reads its config synchronously never needs it.
import { closeSync, constants, fstatSync, openSync, promises, readFileSync, type Stats } from 'node:fs';

/** The error code of a path that is something other than a regular file (errors.ts: exit 8 naming it). */
const NOT_REGULAR = 'ENOTREG';

/** What a path that is no regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function notRegular(path: string, stats: Stats): Error {
  const kind = kindOf(stats);
  return Object.assign(new Error(`${path} is ${kind}, not a regular file`), { code: NOT_REGULAR, path, kind });
}

/** O_NONBLOCK: the open of a FIFO returns at once instead of waiting for a writer; O_NOFOLLOW when asked. */
function readFlags(nofollow: boolean): number {
  return constants.O_RDONLY | constants.O_NONBLOCK | (nofollow ? constants.O_NOFOLLOW ?? 0 : 0);
}

/**
 * The text of a file cnv keeps (export state, output file record, lock, code cache, config),
 * never waiting on it: opened without blocking, then refused (code ENOTREG, `kind` saying what
 * it is) unless it is a regular file. Opened the usual way, a FIFO put at such a path blocked
 * the process (a synchronous open: no signal heard, kill -9 only) or a thread of libuv's pool
 * (the process then could not exit). Other errors (ENOENT, EACCES) are thrown as they come.
 */
export function readRegularFileSync(path: string, opts: { nofollow?: boolean } = {}): Buffer {
  const fd = openSync(path, readFlags(opts.nofollow ?? false));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRegular(path, stats);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** As readRegularFileSync, through the event loop. */
export async function readRegularFile(path: string, opts: { nofollow?: boolean } = {}): Promise<Buffer> {
  const file = await promises.open(path, readFlags(opts.nofollow ?? false));
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw notRegular(path, stats);
    return await file.readFile();
  } finally {
    await file.close();
  }
}
