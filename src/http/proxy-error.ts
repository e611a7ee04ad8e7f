// Apart from proxy-tunnel.ts, which loads undici: the failure classifier needs only this class,
// and every command loads the classifier at start, before it knows whether undici is needed.

/** The code of every ProxyError: the tunnel was refused or never opened, so the request never left. */
const PROXY_TUNNEL_FAILED = 'PROXY_TUNNEL_FAILED';

/**
 * The proxy (HTTPS_PROXY / HTTP_PROXY) did not open the tunnel the request was to go through:
 * unreachable, silent, an answer other than `200`, or a `200` with a body. `proxy` is its
 * origin, without the user and password a proxy URL may hold.
 */
export class ProxyError extends Error {
  readonly code = PROXY_TUNNEL_FAILED;

  constructor(
    readonly proxy: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProxyError';
  }
}
