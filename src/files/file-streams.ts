import {
  constants,
  createReadStream,
  createWriteStream,
  lstatSync,
  open as openFd,
  readlinkSync,
  statSync,
} from 'node:fs';
import { stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { LocalFileError } from '../errors.js';

// A FIFO opened the usual way blocks a thread of libuv's pool until the other side opens it,
// and a read or write then blocks one until data moves: the process can neither stop that
// wait nor exit while it lasts (Node joins those threads at exit), so every signal goes
// unheard. A FIFO is therefore opened without blocking and read or written through the event
// loop, like a pipe, where a wait ends the moment the stream is destroyed.

const RETRY_MS = 100;

/**
 * A file to be written must be in a directory that exists: else a local file error (exit 8)
 * naming the directory, before anything is sent (the file's own open would name only itself,
 * or a temporary file beside it). A device or FIFO (`/dev/stdout`) is not judged here.
 */
export function assertParentDirectory(what: string, path: string): void {
  if (isStreamTarget(path)) return;
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw LocalFileError.missingDirectory(what, path, dir, 'ENOTDIR');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw LocalFileError.missingDirectory(what, path, dir, code);
    // Anything else (no permission to look) is the open's to report.
    if (err instanceof LocalFileError) throw err;
  }
}

/**
 * Whether an output path is to be written as a stream rather than replaced by a file renamed
 * over it: a device, a FIFO or a socket (followed through a link: `/dev/stderr`, `/dev/fd/63`
 * of a `>(...)`), or any path under /dev or /proc, where renaming would replace the system's own
 * link (`/dev/stderr` made a plain file, when run as root).
 */
export function isStreamTarget(path: string): boolean {
  const full = resolve(path);
  const system = (p: string) => /^\/(dev|proc)\//.test(p);
  if (system(full)) return true;
  try {
    // A link of one's own to /dev/stderr or /proc/self/fd/2 is as good as the name it links to.
    if (lstatSync(full).isSymbolicLink() && system(resolve(dirname(full), readlinkSync(full)))) return true;
    return !statSync(full).isFile();
  } catch {
    // Missing, or a link to nothing: a new file.
    return false;
  }
}

/**
 * A file read once, from its start: a regular file or a device through fs, a FIFO through the
 * event loop (waiting for a writer costs no thread). With `signal`, an abort destroys the stream
 * with the signal's reason, wherever the reading is.
 */
export async function openReadStream(path: string, signal?: AbortSignal): Promise<Readable> {
  const fifo = (await stat(path)).isFIFO();
  signal?.throwIfAborted();
  // O_NONBLOCK: the open returns at once; without a writer yet, the pipe just has nothing to read.
  const stream: Readable = fifo
    ? new Socket({ fd: await fdOf(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false })
    : createReadStream(path);
  return stopOnAbort(stream, signal);
}

/**
 * A file written as a stream (a report to a device or a FIFO). A FIFO without a reader is waited
 * for (its open retried every 100 ms), and that wait ends with `signal`.
 */
export async function openWriteStream(path: string, signal?: AbortSignal): Promise<Writable> {
  const fifo = await stat(path).then(
    (s) => s.isFIFO(),
    () => false,
  );
  // Appended to: /dev/stderr of a `2>>log` is that log, which a report must not empty first.
  if (!fifo) return createWriteStream(path, { flags: 'a' });
  for (;;) {
    signal?.throwIfAborted();
    try {
      const fd = await fdOf(path, constants.O_WRONLY | constants.O_NONBLOCK);
      return stopOnAbort(new Socket({ fd, readable: false, writable: true }), signal);
    } catch (err) {
      // ENXIO: no reader yet.
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, RETRY_MS);
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

function fdOf(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => openFd(path, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

/**
 * The stream, destroyed with the signal's reason when the signal aborts: a read or a write
 * waiting on it then fails at once with that reason. stdin from a pipe whose writer stays
 * (`(printf ...; sleep 15) | cnv ...`) is read through it, so that SIGINT and SIGTERM end the
 * wait as they do for a FIFO given by path.
 */
export function stopOnAbort<S extends Readable | Writable>(stream: S, signal: AbortSignal | undefined): S {
  if (!signal) return stream;
  const stop = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
  if (signal.aborted) {
    stop();
    return stream;
  }
  signal.addEventListener('abort', stop, { once: true });
  stream.once('close', () => signal.removeEventListener('abort', stop));
  return stream;
}

/**
 * The whole of a small input, read chunk by chunk so that a huge file or an endless one
 * (`/dev/zero`, a FIFO) is refused with `tooLarge()` once past `limit` bytes, not held.
 */
export async function readWhole(source: AsyncIterable<unknown>, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > limit) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
