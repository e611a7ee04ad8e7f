import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import dispatcherRequest from 'undici/lib/api/api-request.js';
import dispatcherConnect from 'undici/lib/api/api-connect.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';

// Only the parts of undici that cnv uses, from their own files: undici's index also loads
// fetch, WebSocket, EventSource, the caches, the mocks and every interceptor (about 1 MB once
// bundled), and every command that makes a request would pay for that at start-up.

// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it at once with its
// baseline compiler, then optimises it again in the background, and a process cannot exit
// before that background job is done: ~130 ms added to every short command (measured with
// strace: the main thread waits on the compiler thread at exit). The baseline code parses
// headers fast enough (bodies are not parsed, only framed); keep it. Set before the first
// connection, which is when llhttp is compiled.
setFlagsFromString('--liftoff-only');

// undici's index attaches its API to Dispatcher.prototype; the proxy agent tunnels through a
// client's connect(), so that one must be there when HTTPS_PROXY / HTTP_PROXY is in use.
const proto = DispatcherBase.prototype as { connect?: unknown; request?: unknown };
proto.connect ??= dispatcherConnect;
proto.request ??= dispatcherRequest;

export { EnvHttpProxyAgent };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method: Dispatcher.HttpMethod;
  dispatcher: Dispatcher;
};

/** undici's `request(url, { dispatcher, ... })`, for an absolute URL. */
export function request(url: URL, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  return dispatcherRequest.call(dispatcher, {
    ...rest,
    origin: url.origin,
    path: url.search ? `${url.pathname}${url.search}` : url.pathname,
  });
}
