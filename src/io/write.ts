import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes a chunk and waits for 'drain' when the stream asks for it, so memory stays flat. */
export async function writeWithBackpressure(stream: Writable, chunk: string | Buffer): Promise<void> {
  if (!stream.write(chunk)) {
    await Promise.race([
      once(stream, 'drain'),
      once(stream, 'error').then(([err]) => Promise.reject(err)),
      once(stream, 'close').then(() => Promise.reject(Object.assign(new Error('output closed'), { code: 'EPIPE' }))),
    ]);
  }
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
