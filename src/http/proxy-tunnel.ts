import type { Duplex } from 'node:stream';
import type { Dispatcher, Pool as PoolType } from 'undici';
import { dispatcherConnect, Pool } from './undici.js';
import { ProxyError } from './proxy-error.js';

/**
 * The tunnels of one agent: those being opened (CONNECT sent, no answer yet) and the proxy each
 * target was last reached through, by the `host:port` they lead to. A failed attempt through a
 * proxy names it.
 */
export class TunnelWatch {
  private readonly opening = new Map<string, { proxy: string; count: number }>();
  private readonly through = new Map<string, string>();

  constructor(private readonly timeoutMs: number) {}

  /** Records a CONNECT to `target` through `proxy`; the function returned ends it. */
  open(target: string, proxy: string): () => void {
    const entry = this.opening.get(target) ?? { proxy, count: 0 };
    entry.count++;
    this.opening.set(target, entry);
    this.through.set(target, proxy);
    return () => {
      if (--entry.count === 0 && this.opening.get(target) === entry) this.opening.delete(target);
    };
  }

  /**
   * The error an attempt at `url` ends with: a timeout while a tunnel to it is still being
   * opened is the proxy's (ProxyError); another failure of a request that went through a proxy
   * (a tunnel closed before the answer) says which proxy it went through.
   */
  failure(url: URL, err: unknown): unknown {
    if (err instanceof ProxyError) return err;
    const target = hostPort(url);
    const opening = this.opening.get(target);
    const timeout = (err as Error | undefined)?.name === 'TimeoutError';
    if (timeout && opening)
      return new ProxyError(
        opening.proxy,
        `the proxy ${opening.proxy} did not answer CONNECT ${target} within ${seconds(this.timeoutMs)} (--timeout)`,
      );
    const proxy = this.through.get(target);
    if (!proxy || !(err instanceof Error) || (!timeout && (err as { code?: unknown }).code === undefined)) return err;
    return Object.assign(new Error(`${err.message} (through the proxy ${proxy})`, { cause: err }), {
      name: err.name,
      code: (err as { code?: unknown }).code,
    });
  }

  /**
   * The client to a proxy that undici's proxy agent opens each tunnel with (its `clientFactory`):
   * a pool whose CONNECT has `timeoutMs` to be answered, and whose answer is checked before the
   * tunnel is used (`openTunnel`).
   */
  proxyClient(): (origin: string | URL, opts: PoolType.Options) => PoolType {
    return (origin, opts) => {
      const proxy = new URL(origin).origin;
      const pool = new Pool(origin, { ...opts, headersTimeout: this.timeoutMs });
      return Object.assign(pool, {
        connect: (params: Dispatcher.ConnectOptions) => this.openTunnel(pool, proxy, params),
      });
    };
  }

  /**
   * One CONNECT. A tunnel is a `200` whose connection then carries the request: any other answer
   * is refused, and so is a `200` with a body, or with bytes after it, before the request was
   * written (undici took those for an answer without a request, closed the tunnel and opened
   * another, tens of thousands a second, none of them counted as an attempt). A refusal fails
   * the request at once, as a ProxyError: undici hands a connect error to every request waiting.
   */
  private async openTunnel(
    pool: PoolType,
    proxy: string,
    params: Dispatcher.ConnectOptions,
  ): Promise<Dispatcher.ConnectData> {
    const target = String(params.path);
    const done = this.open(target, proxy);
    let answer: Dispatcher.ConnectData;
    try {
      answer = await (
        dispatcherConnect as (this: Dispatcher, options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>
      ).call(pool, params);
    } catch (err) {
      throw new ProxyError(proxy, unreachable(proxy, target, err, this.timeoutMs), { cause: err });
    } finally {
      done();
    }
    const refuse = (what: string): never => {
      (answer.socket as Duplex).on('error', () => {}).destroy();
      throw new ProxyError(proxy, `the proxy ${proxy} answered CONNECT ${target} with ${what}`);
    };
    if (answer.statusCode === 407)
      refuse('407 (proxy authentication required: the user and password go in the proxy URL)');
    if (answer.statusCode !== 200) refuse(`${answer.statusCode}`);
    const headers = answer.headers;
    if (
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      (answer.socket as Duplex).readableLength > 0
    ) {
      refuse('200 and a body, not an open tunnel');
    }
    return answer;
  }
}

/** `host:port` as a CONNECT names it (the scheme's port when the URL has none). */
function hostPort(url: URL): string {
  return url.port ? url.host : `${url.host}:${url.protocol === 'https:' ? 443 : 80}`;
}

function unreachable(proxy: string, target: string, err: unknown, timeoutMs: number): string {
  const code = (err as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return `the proxy ${proxy} did not answer CONNECT ${target} within ${seconds(timeoutMs)} (--timeout)`;
  if (code === 'UND_ERR_SOCKET') return `the proxy ${proxy} closed the connection without answering CONNECT ${target}`;
  const why = `${(err as Error).message || code}${code ? ` [${code}]` : ''}`;
  return `cannot reach the proxy ${proxy} to open a tunnel to ${target}: ${why}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
