import type { IncomingMessage } from 'node:http';
import type { Answer, SendOptions } from './transport.js';

/** What undici gives up connecting after (its `connect.timeout`), and the code it says so with. */
const CONNECT_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_CODE = 'UND_ERR_CONNECT_TIMEOUT';

/**
 * Whether a process's first request may go through node:http instead of undici: undici's
 * EnvHttpProxyAgent reads these, and only it tunnels through a proxy.
 */
export function firstRequestAllowed(env: NodeJS.ProcessEnv): boolean {
  return !['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'].some((name) => env[name]);
}

/**
 * Sends one request with node:http(s), answered as undici's `request()` answers: the status,
 * the headers (lower-case names; a repeated header as an array), and the body as chunks with a
 * way to stop reading. Failures are undici's too: the attempt's signal rejects with its reason
 * (a timeout is a TimeoutError), a connection not made within 10 s is UND_ERR_CONNECT_TIMEOUT,
 * system errors keep their codes. Only for a process's first request (src/http/client.ts):
 * node:http loads in a few milliseconds where undici takes tens, and its parser is native where
 * undici first compiles llhttp's WebAssembly. One connection, closed after the answer.
 */
export async function sendFirst(url: URL, opts: SendOptions): Promise<Answer> {
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const { signal } = opts;
  signal.throwIfAborted();
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, {
      method: opts.method,
      headers: body === undefined ? opts.headers : { ...opts.headers, 'content-length': String(body.length) },
      agent: false,
      signal,
    });
    let connectTimer: NodeJS.Timeout | undefined;
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () =>
          req.destroy(
            Object.assign(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms`), {
              code: CONNECT_TIMEOUT_CODE,
            }),
          ),
        CONNECT_TIMEOUT_MS,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.once('error', (err) => {
      clearTimeout(connectTimer);
      reject(signal.aborted ? signal.reason : err);
    });
    req.once('response', (res) => {
      clearTimeout(connectTimer);
      resolve({ statusCode: res.statusCode ?? 0, headers: headersOf(res), body: bodyOf(res, signal) });
    });
    req.end(body);
  });
}

function headersOf(res: IncomingMessage): Answer['headers'] {
  const headers: Answer['headers'] = {};
  for (const [name, values] of Object.entries(res.headersDistinct)) {
    if (values !== undefined) headers[name] = values.length === 1 ? values[0] : values;
  }
  return headers;
}

/** The answer's chunks; cut short by the attempt's signal, it fails with the signal's reason, as undici's body does. */
function bodyOf(res: IncomingMessage, signal: AbortSignal): Answer['body'] {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of res) yield chunk as Buffer;
      } catch (err) {
        throw signal.aborted ? signal.reason : err;
      }
      // A connection closed before the end of a body of known length ends the stream without an error.
      if (!res.complete)
        throw signal.aborted
          ? signal.reason
          : Object.assign(new Error('the connection closed before the end of the answer'), { code: 'ECONNRESET' });
    },
    destroy: () => res.destroy(),
  };
}
