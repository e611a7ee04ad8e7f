import type { EnvHttpProxyAgent as ProxyAwareAgent } from 'undici';
import { TunnelWatch } from './proxy-tunnel.js';
import { EnvHttpProxyAgent } from './undici.js';

/** The keep-alive agent, and the tunnels it is opening through a proxy (src/http/proxy-tunnel.ts). */
export type Agent = ProxyAwareAgent & { readonly tunnels: TunnelWatch };

/**
 * Keep-alive agent that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY; never the global dispatcher.
 * Its client to a proxy is cnv's (TunnelWatch.proxyClient): a CONNECT is answered within
 * `timeoutMs` (the attempt's limit, --timeout) or fails, and a tunnel the proxy did not really
 * open is refused.
 */
export function createAgent(timeoutMs: number): Agent {
  const tunnels = new TunnelWatch(timeoutMs);
  const agent = new EnvHttpProxyAgent({
    keepAliveTimeout: 10_000,
    connections: 64,
    clientFactory: tunnels.proxyClient(),
  } as ProxyAwareAgent.Options);
  return Object.assign(agent, { tunnels });
}
