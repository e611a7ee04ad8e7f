import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { CliError, DryRunStop } from '../errors.js';
import { stringifyJson } from '../lib/exact-number.js';
import { parseJson } from '../json/exact-json.js';
import { keyWatch, makeRedactor, maskKey, redactUrl } from '../redact/redact.js';
import { CursorSeal } from './cursor-seal.js';
import { keyForms, type KeyForms } from '../redact/key-forms.js';
import type { RequestLogger } from './logger.js';
import { BodyCapture } from './debug-logger.js';
import { attemptDeadline } from './deadline.js';
import type { RateLimiter } from './rate-limiter.js';
import {
  backoffDelay,
  DEFAULT_MAX_RETRY_WAIT_MS,
  isRetryable,
  parseRetryAfter,
  type FailedAttempt,
  type Idempotency,
} from './retry-policy.js';
import { answerData } from './envelope.js';
import { readCapped } from './body.js';
import { BODY_LIMITS } from '../limits/limits.js';
import { finalError, networkErrorCode, parseFailure, waitTooLong, type Target } from './failures.js';
import { parseAnyJson, parseEnvelope, readWhole } from './answer-reader.js';
import { requestOf, type CallInput, type CallResult, type Endpoint, type Query, type RowsAnswer } from './endpoint.js';
import { NotRetried, readRowsPage, type RowReceiver } from './page-reader.js';
import { undiciSend, type Answer, type Send, type Success } from './transport.js';

interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  /** The undici dispatcher requests go through (the keep-alive agent; tests: MockAgent), or how to make it on first use. */
  dispatcher: Dispatcher | (() => Promise<Dispatcher>);
  /**
   * Carries the first attempt of the process's first request instead of the dispatcher, which is
   * then not made until a second is sent (src/http/first-request.ts: node:http, for the many
   * commands that send one request). Everything else is the same path.
   */
  firstRequest?: Send;
  limiter: RateLimiter;
  clock: Clock;
  logger: RequestLogger;
  /** Attempts in all, first one included. */
  maxAttempts: number;
  /** Per-attempt time limit. */
  timeoutMs: number;
  /** Longest wait a Retry-After may ask for; past it the request gives up at once (default 60 s). */
  maxRetryWaitMs?: number;
  random?: () => number;
  userAgent?: string;
  /** When set, write requests are handed to it instead of being sent (--dry-run). */
  dryRun?: (request: { method: string; url: string; headers: Record<string, string>; body?: unknown }) => void;
}

/** A request by method and path, for what the endpoint table does not send: doctor's probes, `cnv api`. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  path: string;
  query?: Query;
  body?: unknown;
  /** `unsafe`: retried only when the request provably never reached the server. */
  idempotency: Idempotency;
  signal?: AbortSignal;
  /** `false`: sent without the API key (doctor's check that the server asks for one). */
  auth?: boolean;
  /** More request headers, lower-case names (`cnv api -H`); never the key's, which stays the client's. */
  headers?: Record<string, string>;
  /** Shown the last error answer (status, headers, body; key masked) before its error is thrown (`cnv api --include`). */
  onErrorAnswer?: (answer: { status: number; headers: Record<string, string | string[]>; text: string }) => void;
}

interface DataSpec<T extends z.ZodType> extends RequestSpec {
  /** Schema of the `data` member of a success answer. */
  data: T;
  /** Whether the answer carries `pagination.nextCursor`. */
  paginated?: boolean;
}

/** A 2xx answer of `requestRaw`: its status, headers (key masked) and JSON body as it came. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[]>;
  json: unknown;
  /**
   * `pagination.nextCursor` when it is a string or null, as the client hands cursors out
   * (src/http/cursor-seal.ts); `json` holds it masked.
   */
  nextCursor?: string | null;
}

interface ApiResponse<T> {
  data: T;
  nextCursor?: string | null;
  status: number;
  attempts: number;
}

/** What `call` takes, whatever the endpoint (its overloads type it by the row). */
interface AnyCallInput {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
  signal?: AbortSignal;
  receive?: () => RowReceiver<unknown>;
}

/** A failed attempt, as the retry decision and the final error read it. */
type Failure = FailedAttempt & {
  error: Error;
  retryAfterMs?: number;
  answeredAt?: number;
  answer?: { headers: Dispatcher.ResponseData['headers']; text: string };
};

/** The one request path for every endpoint: auth header, rate limit, retries, validation, typed errors. */
export class HttpClient {
  private readonly opts: HttpClientOptions;
  private readonly random: () => number;
  private readonly baseUrl: string;
  /** Masks the key (and any URL credentials) in every text made from what the server sent. */
  private readonly redact: (text: string) => string;
  private readonly cursors: CursorSeal;
  /**
   * The key's forms, masked in a success answer's text before it is parsed (null for a key too
   * short to mask); made on first use.
   */
  private keyForms: KeyForms | null | undefined;
  private firstRequest: Send | undefined;
  private undici: Promise<Send> | undefined;
  /** Told of every attempt's end besides the log (the tap's metrics: `watch`). */
  private readonly watchers: Array<RequestLogger['response']> = [];

  constructor(opts: HttpClientOptions) {
    this.opts = opts;
    this.firstRequest = opts.firstRequest;
    this.random = opts.random ?? Math.random;
    this.baseUrl = normalizeBaseUrl(opts.baseUrl);
    this.redact = makeRedactor([opts.apiKey]);
    this.cursors = new CursorSeal(opts.apiKey);
  }

  /**
   * Sends one endpoint of the table (src/endpoints/endpoints.ts) by its row: method, path with
   * `params` filled in, retries by its idempotency, and resolves to the member of `data` the row
   * names, checked by its schema (`{ items, nextCursor }` for a list). An export's rows go to
   * the receiver `receive` makes, afresh for every attempt (src/http/page-reader.ts).
   */
  call<E extends Endpoint & { answer: RowsAnswer }, P>(
    endpoint: E,
    input: CallInput<E> & { receive: () => RowReceiver<P> },
  ): Promise<P>;
  call<E extends Endpoint>(endpoint: E, input: CallInput<E>): Promise<CallResult<E>>;
  async call(endpoint: Endpoint, input: AnyCallInput): Promise<unknown> {
    const spec = requestOf(endpoint, input as CallInput<Endpoint>);
    const { answer } = endpoint;
    if ('row' in answer) {
      const { receive } = input;
      if (!receive) throw new Error(`${endpoint.path}: an export page's rows need a receiver`);
      const watch = () => (this.opts.apiKey.length >= 8 ? keyWatch(this.opts.apiKey) : undefined);
      return this.run(spec, (success) =>
        readRowsPage(success, answer, receive(), { watch: watch(), cursor: this.seal }),
      );
    }
    const res = await this.request({ ...spec, data: answerData(answer), paginated: answer.paginated });
    const data = answer.member === undefined ? res.data : (res.data as Record<string, unknown>)[answer.member];
    return answer.paginated ? { items: data, nextCursor: res.nextCursor ?? null } : data;
  }

  /** Tells `watcher` how every attempt ended (its status and time), beside the request log in force. */
  watch(watcher: RequestLogger['response']): void {
    this.watchers.push(watcher);
  }

  /** Any request whose `data` is checked by a schema given here (doctor's probes); endpoints of the table go through `call`. */
  async request<T extends z.ZodType>(spec: DataSpec<T>): Promise<ApiResponse<z.output<T>>> {
    return this.run(spec, async (success) => {
      const raw = await readWhole(success);
      const text = this.maskEchoedKey(raw);
      const parsed = parseEnvelope(success, text, spec.data, spec.paginated ?? false);
      return {
        data: parsed.data as z.output<T>,
        nextCursor:
          text === raw ? cursorOf({ pagination: { nextCursor: parsed.nextCursor } }, this.seal) : this.rawCursor(raw),
        status: success.status,
        attempts: success.attempts,
      };
    });
  }

  /**
   * Any request (`cnv api`), through the same path as every other: auth, limiter, retries by
   * `idempotency`, dry-run, verbose log, typed errors. A 2xx answer must be JSON (an HTML page is
   * not the API's); its shape is not checked, and the key echoed in it or its headers is masked.
   */
  async requestRaw(spec: RequestSpec): Promise<RawResponse> {
    return this.run(spec, async (success) => {
      const raw = await readWhole(success);
      const text = this.maskEchoedKey(raw);
      const json = parseAnyJson(success, text);
      const nextCursor = text === raw ? cursorOf(json, this.seal) : this.rawCursor(raw);
      return { status: success.status, headers: this.shownHeaders(success.headers), json, nextCursor };
    });
  }

  /** The attempt loop shared by every request: dry run, then attempts until one succeeds or no retry is left. */
  private async run<R>(spec: RequestSpec, read: (success: Success) => Promise<R>): Promise<R> {
    let url = this.buildUrl(spec.path, spec.query);
    let body = spec.body === undefined ? undefined : stringifyJson(spec.body);
    const target: Target = {
      label: `${spec.method} ${url.pathname}`,
      baseUrl: redactUrl(this.baseUrl),
      redact: this.redact,
    };
    const maxWaitMs = this.opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    if (this.opts.dryRun && spec.method !== 'GET') {
      this.opts.dryRun({
        method: spec.method,
        url: redactUrl(url.toString()),
        headers: this.headers(true, spec),
        body: spec.body,
      });
      throw new DryRunStop();
    }
    // A sealed cursor goes to the server as the server sent it (src/http/cursor-seal.ts).
    const opened = this.openCursor(spec);
    if (opened !== spec) {
      spec = opened;
      url = this.buildUrl(spec.path, spec.query);
      body = spec.body === undefined ? undefined : stringifyJson(spec.body);
    }
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(spec, url, body, target, attempt, read);
      if ('value' in outcome) return outcome.value;
      const { failure } = outcome;
      const retryable = isRetryable(failure, spec.idempotency);
      if (!retryable || attempt >= this.opts.maxAttempts) {
        if (failure.answer && failure.status !== undefined)
          spec.onErrorAnswer?.({
            status: failure.status,
            headers: this.shownHeaders(failure.answer.headers),
            text: this.redact(failure.answer.text),
          });
        throw finalError(failure, target, { attempts: attempt, retryable, idempotency: spec.idempotency });
      }
      if ((failure.retryAfterMs ?? 0) > maxWaitMs)
        throw waitTooLong(failure.error, target, {
          waitMs: failure.retryAfterMs!,
          maxWaitMs,
          now: failure.answeredAt ?? Date.now(),
        });
      const delayMs = Math.max(backoffDelay(attempt, this.random), failure.retryAfterMs ?? 0);
      this.opts.logger.retry({
        method: spec.method,
        path: url.pathname,
        attempt,
        delayMs,
        reason: String(failure.status ?? failure.networkCode),
      });
      await this.opts.clock.sleep(delayMs, spec.signal);
    }
  }

  /** One attempt: the rate limit, the send, and a 2xx read by `read`, or what failed (an error answer, the network). */
  private async attempt<R>(
    spec: RequestSpec,
    url: URL,
    body: string | undefined,
    target: Target,
    attempt: number,
    read: (success: Success) => Promise<R>,
  ): Promise<{ value: R } | { failure: Failure }> {
    const { logger, clock, limiter } = this.opts;
    await limiter.take(spec.signal);
    const started = clock.now();
    logger.request({
      method: spec.method,
      path: url.pathname + url.search,
      attempt,
      ...(logger.wantsBodies ? this.debugRequest(url, spec, body) : {}),
    });
    // The per-attempt time limit covers the answer's body too: released when the attempt is over.
    const deadline = attemptDeadline(this.opts.timeoutMs, spec.signal);
    try {
      const res = await this.send(url, spec, body, deadline.signal);
      // The debug log sees the body as its reader takes it (only then: a cost per chunk).
      const capture = logger.wantsBodies ? new BodyCapture() : undefined;
      const resBody = capture ? capture.wrap(res.body) : res.body;
      const answered = () =>
        this.responded({
          method: spec.method,
          path: url.pathname,
          attempt,
          status: res.statusCode,
          ms: clock.now() - started,
          ...(capture ? { headers: res.headers, body: capture.snapshot() } : {}),
        });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const value = await read({
          body: resBody,
          target,
          status: res.statusCode,
          attempts: attempt,
          headers: res.headers,
        }).catch((err) => {
          res.body.destroy(); // an answer not read to its end would hold the connection
          if (err instanceof CliError || err instanceof NotRetried) answered();
          throw err;
        });
        answered();
        return { value };
      }
      const { text, complete } = await readCapped(resBody, BODY_LIMITS.errorBytes);
      answered();
      return { failure: this.errorAnswer(res, text, complete, target) };
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      if (err instanceof CliError) throw err;
      if (err instanceof NotRetried) throw err.error;
      const networkCode = networkErrorCode(err);
      this.responded({
        method: spec.method,
        path: url.pathname,
        attempt,
        status: networkCode,
        ms: clock.now() - started,
      });
      return { failure: { networkCode, error: err as Error } };
    } finally {
      deadline.release();
    }
  }

  private responded(info: Parameters<RequestLogger['response']>[0]): void {
    this.opts.logger.response(info);
    for (const watcher of this.watchers) watcher(info);
  }

  /** A non-2xx answer as a failed attempt; a 429 pauses the whole bucket. */
  private errorAnswer(res: Answer, text: string, complete: boolean, target: Target): Failure {
    const error = parseFailure({ status: res.statusCode, headers: res.headers, text, complete }, target);
    // One reading of the wall clock: "try again after" must name the moment the server named.
    const answeredAt = Date.now();
    const retryAfterMs = parseRetryAfter(res.headers['retry-after'], answeredAt);
    // Never longer than cnv would wait itself: a paused bucket holds every other request too.
    if (res.statusCode === 429)
      this.opts.limiter.pause(Math.min(retryAfterMs ?? 1000, this.opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS));
    return { status: res.statusCode, error, retryAfterMs, answeredAt, answer: { headers: res.headers, text } };
  }

  /** The spec with a sealed `cursor` (query or body) opened; the spec itself when it has none. */
  private openCursor(spec: RequestSpec): RequestSpec {
    const { query, body } = spec;
    if (typeof query?.cursor === 'string' && query.cursor !== this.cursors.open(query.cursor))
      return { ...spec, query: { ...query, cursor: this.cursors.open(query.cursor) } };
    const inBody = (body as { cursor?: unknown } | undefined)?.cursor;
    if (body && typeof body === 'object' && typeof inBody === 'string' && inBody !== this.cursors.open(inBody))
      return { ...spec, body: { ...(body as object), cursor: this.cursors.open(inBody) } };
    return spec;
  }

  private readonly seal = (cursor: string): string => this.cursors.seal(cursor);

  /** `pagination.nextCursor` of an answer's text as the server sent it, sealed when it holds the key. */
  private rawCursor(raw: string): string | null | undefined {
    try {
      return cursorOf(parseJson(raw), this.seal);
    } catch {
      return undefined;
    }
  }

  private buildUrl(path: string, query?: Query): URL {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private async send(url: URL, spec: RequestSpec, body: string | undefined, signal: AbortSignal): Promise<Answer> {
    const first = this.firstRequest;
    this.firstRequest = undefined;
    const send = first ?? (await (this.undici ??= undiciSend(this.opts.dispatcher)));
    return send(url, { method: spec.method, headers: this.headers(false, spec), body, signal });
  }

  /** What the debug log shows of a request: the URL and headers as they may be shown (key masked), the body. */
  private debugRequest(url: URL, spec: RequestSpec, body: string | undefined) {
    const headers = this.headers(true, spec);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return { url: redactUrl(url.toString()), headers, body };
  }

  /** cnv's headers, the spec's own over them (`cnv api -H`), and the key's, which is always cnv's. */
  private headers(masked: boolean, spec: Pick<RequestSpec, 'auth' | 'headers'>): Record<string, string> {
    const headers: Record<string, string> = {
      ...(spec.auth !== false ? { 'x-api-key': masked ? maskKey(this.opts.apiKey) : this.opts.apiKey } : {}),
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'cnv',
    };
    for (const [name, value] of Object.entries(spec.headers ?? {})) if (name !== 'x-api-key') headers[name] = value;
    return headers;
  }

  /** An answer's headers as they may be shown: the key masked. */
  private shownHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
    const shown: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined)
        shown[name] = Array.isArray(value) ? value.map((v) => this.redact(v)) : this.redact(String(value));
    }
    return shown;
  }

  /**
   * The key echoed anywhere in a success answer (a batch item's message), in any of its forms,
   * never reaches a report or a file: masked in the text before it is parsed (JSON can spell a
   * character only as itself or an escape, and both are masked).
   */
  private readonly maskEchoedKey = (text: string): string => {
    const forms = (this.keyForms ??= this.opts.apiKey.length >= 8 ? keyForms(this.opts.apiKey) : null);
    return forms?.mayHold(text) ? forms.mask(text) : text;
  };
}

/** `pagination.nextCursor` of a parsed answer when it is a string or null. */
function cursorOf(json: unknown, seal: (cursor: string) => string): string | null | undefined {
  const next = (json as { pagination?: { nextCursor?: unknown } } | null)?.pagination?.nextCursor;
  return typeof next === 'string' ? seal(next) : next === null ? null : undefined;
}

/** The base URL without a trailing slash, and without a final `/v2` (every path starts with it). */
function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v2$/i, '');
}
