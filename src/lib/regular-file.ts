// `promises` is read where used: node:fs/promises loads on first use (~6 ms), and a command
// that reads its config synchronously never needs it.
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  promises,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';

/** The error code of a path that is something other than a regular file (errors.ts: exit 8 naming it). */
const NOT_REGULAR = 'ENOTREG';

/** What a path that is no regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
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
  return constants.O_RDONLY | constants.O_NONBLOCK | (nofollow ? (constants.O_NOFOLLOW ?? 0) : 0);
}

/**
 * The text of a file cnv keeps (export state, output file record, lock, code cache, config),
 * never waiting on it: opened without blocking, then refused (code ENOTREG, `kind` saying what
 * it is) unless it is a regular file. Opened the usual way, a FIFO put at such a path blocked
 * the process (a synchronous open: no signal heard, kill -9 only) or a thread of libuv's pool
 * (the process then could not exit). Other errors (ENOENT, EACCES) are thrown as they come.
 */
export function readRegularFileSync(path: string, opts: { nofollow?: boolean } = {}): Buffer {
  let fd: number;
  try {
    fd = openSync(path, readFlags(opts.nofollow ?? false));
  } catch (err) {
    throw linkRefused(err, path);
  }
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
  const file = await promises.open(path, readFlags(opts.nofollow ?? false)).catch((err: unknown) => {
    throw linkRefused(err, path);
  });
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw notRegular(path, stats);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/**
 * A regular file read whole, at most `maxBytes` (more: an error with code EFBIG, thrown as soon
 * as the read passes the bound, never after reading on), a chunk at a time with `signal` checked
 * between chunks. Anything but a regular file (a FIFO, a device such as /dev/zero, a link to one)
 * is refused before a byte is read (ENOTREG, as readRegularFile), never waited on.
 */
export async function readBoundedRegularFile(path: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const file = await promises.open(path, readFlags(false)).catch((err: unknown) => {
    throw linkRefused(err, path);
  });
  const tooLarge = () => Object.assign(new Error(`${path} is larger than ${maxBytes} bytes`), { code: 'EFBIG', path });
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw notRegular(path, stats);
    if (stats.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    for (let total = 0; ;) {
      signal?.throwIfAborted();
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      // A file that grows while it is read is bounded too.
      if (total > maxBytes) throw tooLarge();
    }
  } finally {
    await file.close();
  }
}

/** O_NOFOLLOW refuses a symbolic link with ELOOP: said as what it is (ENOTREG, "a symbolic link"). */
function linkRefused(err: unknown, path: string): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'ELOOP') return err;
  try {
    const stats = lstatSync(path);
    return stats.isSymbolicLink() ? notRegular(path, stats) : err;
  } catch {
    return err;
  }
}

/**
 * Throws ENOTREG (`kind`: a symbolic link, a FIFO, a directory, a device) when something other
 * than a regular file is at `path`; nothing when it is a regular file or nothing is there.
 */
export function refuseSpecialFile(path: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (!stats.isFile()) throw notRegular(path, stats);
}

/**
 * Writes a file cnv keeps, whole and atomically: a temporary file beside it (`<path>.tmp-<pid>-<hex>`,
 * created with O_EXCL and O_NOFOLLOW, so nothing planted is followed), fsynced, then renamed over
 * `path`. A rename replaces a symbolic link itself, never its target, so even a link put there
 * between the check and the rename is not written through. Errors are thrown as they come
 * (ENOTREG for a refused path); the temporary file is removed on failure.
 */
export function writeRegularFileSync(
  path: string,
  data: string | Uint8Array,
  opts: { mode: number; link: 'refuse' | 'replace' },
): void {
  if (opts.link === 'refuse') refuseSpecialFile(path);
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      opts.mode,
    );
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
