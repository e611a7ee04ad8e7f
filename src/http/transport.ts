import type { Dispatcher } from 'undici';
import type { Agent } from './agent.js';
import type { ResponseBody } from './body.js';
import { endedBy } from './deadline.js';
import type { Target } from './failures.js';

/** One attempt at a request, as the client hands it to a transport. */
export interface SendOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  /** The attempt's signal: its time limit and Ctrl-C. */
  signal: AbortSignal;
}

/** An answer as undici's `request()` gives it, whichever transport carried it. */
export interface Answer {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  body: ResponseBody;
}

/** Sends one attempt and resolves when the answer's headers are in. */
export type Send = (url: URL, opts: SendOptions) => Promise<Answer>;

/** A 2xx answer as the attempt loop hands it to the reader of its body. */
export interface Success {
  body: ResponseBody;
  target: Target;
  status: number;
  /** Attempts made, this one included. */
  attempts: number;
  headers: Dispatcher.ResponseData['headers'];
}

/**
 * undici's request() through the dispatcher, both loaded on first use; each attempt ends at its
 * signal (`endedBy`). An attempt that runs out of time while a proxy has not opened its tunnel
 * fails as the proxy's (ProxyError); any other failure through a proxy names it.
 */
export async function undiciSend(dispatcher: Dispatcher | (() => Promise<Dispatcher>)): Promise<Send> {
  const [{ request }, agent] = await Promise.all([
    import('./undici.js'),
    typeof dispatcher === 'function' ? dispatcher() : dispatcher,
  ]);
  const tunnels = (agent as Partial<Agent>).tunnels;
  if (!tunnels)
    return (url, opts) => endedBy(request(url, { ...opts, dispatcher: agent }), opts.signal, () => opts.signal.reason);
  return (url, opts) =>
    endedBy(request(url, { ...opts, dispatcher: agent }), opts.signal, () =>
      tunnels.failure(url, opts.signal.reason),
    ).catch((err: unknown) => Promise.reject(opts.signal.aborted ? err : tunnels.failure(url, err)));
}
