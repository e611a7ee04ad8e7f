import type { Dispatcher } from 'undici';
import type { ResponseBody } from './body.js';

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
