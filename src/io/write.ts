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
