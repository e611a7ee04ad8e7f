import type { EnvHttpProxyAgent as ProxyAwareAgent } from 'undici';
import { wireUndiciDispatcher } from '../runtime/undici-prototype.js';
import { EnvHttpProxyAgent } from './undici.js';

/** Keep-alive agent that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY; never the global dispatcher. */
export function createAgent(): ProxyAwareAgent {
  wireUndiciDispatcher();
  return new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, connections: 64 });
}
