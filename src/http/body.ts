import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';

/** A response body as its readers use it: chunks in order, and a way to stop reading. */
export type ResponseBody = AsyncIterable<unknown> & { destroy(): unknown };

/** The Content-Length the server announced, when it is a number. */
export function declaredLength(headers: Dispatcher.ResponseData['headers']): number | undefined {
  const raw = headers['content-length'];
  const n = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * Reads a body up to `limit` bytes: `complete` is false when there was more (the rest is not
 * read, and the body is destroyed so that the connection is closed rather than drained).
 */
export async function readCapped(body: ResponseBody, limit: number): Promise<{ text: string; complete: boolean }> {
  // Decoded as it comes (a character cut between chunks waits in the decoder): the bytes are
  // not held again as one buffer beside the text.
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  let size = 0;
  let complete = true;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    if (size + buf.length > limit) {
      parts.push(decoder.write(buf.subarray(0, limit - size)));
      complete = false;
      break;
    }
    size += buf.length;
    parts.push(decoder.write(buf));
  }
  if (!complete) body.destroy();
  parts.push(decoder.end());
  const text = parts.join('');
  // undici's text() drops a byte order mark too.
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, complete };
}
