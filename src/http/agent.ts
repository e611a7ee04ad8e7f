import { EnvHttpProxyAgent } from 'undici';

/** Keep-alive agent that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY; never the global dispatcher. */
export function createAgent(): EnvHttpProxyAgent {
  return new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, connections: 64 });
}
