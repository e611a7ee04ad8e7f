import type { Dispatcher } from 'undici';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import dispatcherRequest from 'undici/lib/api/api-request.js';
import dispatcherConnect from 'undici/lib/api/api-connect.js';

// Only the parts of undici that cnv uses, from their own files: undici's index also loads
// fetch, WebSocket, EventSource, the caches, the mocks and every interceptor (about 1 MB once
// bundled), and every command that makes a request would pay for that at start-up.

// undici's index also attaches `connect` and `request` to Dispatcher.prototype on import. cnv
// changes no prototype: `request` below calls the function with the dispatcher as `this`, and
// the one dispatcher that needs `connect` (a proxy agent's client to the proxy) gets its own
// (src/http/agent.ts). No side effects here.
export { EnvHttpProxyAgent, Pool, dispatcherConnect };

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
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
