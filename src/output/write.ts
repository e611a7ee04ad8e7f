import type { Writable } from 'node:stream';

/**
 * Resolves at the stream's next 'drain'. Rejects when it fails or closes first, or when it has
 * already failed or closed: then no 'drain' will ever come, and a wait for one would end the
 * process with nothing left to do (Node 24 fails a write to `/dev/full` before the writer waits).
 */
export function drained(stream: Writable): Promise<void> {
  const closedError = () => Object.assign(new Error('output closed'), { code: 'EPIPE' });
  if (stream.errored) return Promise.reject(stream.errored);
  if (stream.destroyed || stream.closed) return Promise.reject(closedError());
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (err: Error) => done(err);
    const onClose = () => done(stream.errored ?? closedError());
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** Writes a chunk and waits for 'drain' when the stream asks for it, so memory stays flat. */
export async function writeWithBackpressure(stream: Writable, chunk: string | Buffer): Promise<void> {
  if (!stream.write(chunk)) await drained(stream);
}

/**
 * Writes a chunk and resolves once the stream has handed it on (its write callback), so a
 * caller can record progress only for what really left: an EPIPE rejects instead.
 */
export function writeFlushed(stream: Writable, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    stream.once('error', onError);
    stream.write(chunk, (err) => {
      stream.off('error', onError);
      if (err) reject(err);
      else resolve();
    });
  });
}
