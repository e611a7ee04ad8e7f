import { constants, createReadStream, createWriteStream, open as openFd } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

// A FIFO opened the usual way blocks a thread of libuv's pool until the other side opens it,
// and a read or write then blocks one until data moves: the process can neither stop that
// wait nor exit while it lasts (Node joins those threads at exit), so every signal goes
// unheard. A FIFO is therefore opened without blocking and read or written through the event
// loop, like a pipe, where a wait ends the moment the stream is destroyed.

const RETRY_MS = 100;

/**
 * A file read once, from its start: a regular file or a device through fs, a FIFO through the
 * event loop (waiting for a writer costs no thread). With `signal`, an abort destroys the stream
 * with the signal's reason, wherever the reading is.
 */
export async function openReadStream(path: string, signal?: AbortSignal): Promise<Readable> {
  const fifo = (await stat(path)).isFIFO();
  signal?.throwIfAborted();
  // O_NONBLOCK: the open returns at once; without a writer yet, the pipe just has nothing to read.
  const stream: Readable = fifo ? new Socket({ fd: await fdOf(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false }) : createReadStream(path);
  return stopOnAbort(stream, signal);
}

/**
 * A file written as a stream (a report to a device or a FIFO). A FIFO without a reader is waited
 * for (its open retried every 100 ms), and that wait ends with `signal`.
 */
export async function openWriteStream(path: string, signal?: AbortSignal): Promise<Writable> {
  const fifo = await stat(path).then((s) => s.isFIFO(), () => false);
  if (!fifo) return createWriteStream(path);
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

function stopOnAbort<S extends Readable | Writable>(stream: S, signal: AbortSignal | undefined): S {
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
