import type { EnvHttpProxyAgent as ProxyAwareAgent, Pool as PoolType } from 'undici';
import { EnvHttpProxyAgent, Pool, dispatcherConnect } from './undici.js';

/**
 * The proxy agent's client to the proxy (HTTPS_PROXY / HTTP_PROXY) opens each tunnel with its
 * `connect()`, a method undici's index attaches to Dispatcher.prototype on import. cnv imports
 * undici by file (src/http/undici.ts), without that index, and changes no prototype: this one
 * client gets the method as its own.
 */
function proxyClient(origin: string | URL, opts: PoolType.Options): PoolType {
  return Object.assign(new Pool(origin, opts), { connect: dispatcherConnect });
}

/** Keep-alive agent that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY; never the global dispatcher. */
export function createAgent(): ProxyAwareAgent {
  return new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, connections: 64, clientFactory: proxyClient } as ProxyAwareAgent.Options);
}
