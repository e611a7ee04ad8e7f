import { Dispatcher, EnvHttpProxyAgent, Pool, request as undiciRequest } from 'undici';

// undici through its public entry only: nothing here depends on where undici keeps a file, so a
// minor release of undici is an ordinary update (docs/startup.md says what importing its parts
// by file was worth: less than the 10% that would have kept it).
export { EnvHttpProxyAgent, Pool };

/**
 * `Dispatcher.prototype.connect` (undici attaches its API to the prototype): the proxy's client
 * calls it with itself as `this`.
 */
export const dispatcherConnect = Dispatcher.prototype.connect;

/** undici's `request(url, { dispatcher, ... })`, for an absolute URL. */
export function request(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
    method: Dispatcher.HttpMethod;
    dispatcher: Dispatcher;
  },
): Promise<Dispatcher.ResponseData> {
  return undiciRequest(url, opts);
}
