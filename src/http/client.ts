import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { CliError, DryRunStop, ResponseShapeError } from '../errors.js';
import { stringifyJson } from '../lib/exact-number.js';
import { parseJson } from './exact-json.js';
import { keyMasker, makeRedactor, maskKey, redactUrl } from './redact.js';
import { keyForms, type KeyForms } from './key-forms.js';
import type { RequestLogger } from './logger.js';
import { BodyCapture } from './debug-logger.js';
import { attemptDeadline, endedBy } from './deadline.js';
import type { Agent } from './agent.js';
import type { RateLimiter } from './rate-limiter.js';
import { backoffDelay, DEFAULT_MAX_RETRY_WAIT_MS, isRetryable, parseRetryAfter, type FailedAttempt, type Idempotency } from './retry-policy.js';
import { describeIssues, envelopeSchema, rowsData } from './envelope.js';
import { JsonRowSplitter, JsonSyntaxError, JsonTooLargeError } from '../lib/json-rows.js';
import { BODY_LIMITS, declaredLength, MAX_DEPTH, nestedDeeperThan, readCapped, type ResponseBody } from './body.js';
import { describeBody } from './foreign.js';
import { finalError, notTheApi, parseFailure, tooLarge, waitTooLong, type Target } from './failures.js';
import type { Answer, Send } from './transport.js';

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
  /**
   * `whole`: an export page is read whole, parsed with one JSON.parse, and each row's text made
   * again with JSON.stringify, as before the row splitter. Only to measure the splitter against
   * (CNV_PAGE_READER=whole, the `parsers` bench suite): numbers past 2^53, escapes and
   * integer-like member names are then not written as sent.
   */
  pageReader?: 'stream' | 'whole';
  /** When set, write requests are handed to it instead of being sent (--dry-run). */
  dryRun?: (request: { method: string; url: string; headers: Record<string, string>; body?: unknown }) => void;
}

interface BaseSpec {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
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

interface RequestSpec<T extends z.ZodType> extends BaseSpec {
  /** Schema of the `data` member of a success answer. */
  data: T;
  /** Whether the answer carries `pagination.nextCursor`. */
  paginated?: boolean;
}

/** A paginated answer `{ data: { <member>: [row, …] }, pagination: { nextCursor } }`. */
interface RowsSpec extends BaseSpec {
  member: string;
  /** Schema each row must match. */
  row: z.ZodType<Record<string, unknown>>;
}

/** Takes the rows of one attempt at a page, then makes the caller's page of them. */
export interface RowReceiver<P> {
  /** `text`: the row's own JSON text as the server sent it (the key masked), from `{` to `}`. */
  row(row: Record<string, unknown>, text: string): void;
  end(nextCursor: string | null): P;
}

/** A 2xx answer of `requestRaw`: its status, headers (key masked) and JSON body as it came. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[]>;
  json: unknown;
}

interface ApiResponse<T> {
  data: T;
  nextCursor?: string | null;
  status: number;
  attempts: number;
}

/** The one request path for every endpoint: auth header, rate limit, retries, validation, typed errors. */
export class HttpClient {
  private readonly opts: HttpClientOptions;
  private readonly random: () => number;
  private readonly baseUrl: string;
  /** Masks the key (and any URL credentials) in every text made from what the server sent. */
  private readonly redact: (text: string) => string;
  /** The key's forms, masked in a success answer's text before it is parsed (undefined for a key too short to mask). */
  private readonly keyForms: KeyForms | undefined;
  private firstRequest: Send | undefined;
  private undici: Promise<Send> | undefined;

  constructor(opts: HttpClientOptions) {
    this.opts = opts;
    this.firstRequest = opts.firstRequest;
    this.random = opts.random ?? Math.random;
    this.baseUrl = normalizeBaseUrl(opts.baseUrl);
    this.redact = makeRedactor([opts.apiKey]);
    this.keyForms = opts.apiKey.length >= 8 ? keyForms(opts.apiKey) : undefined;
  }

  async request<T extends z.ZodType>(spec: RequestSpec<T>): Promise<ApiResponse<z.output<T>>> {
    return this.run(spec, async (body, target, status, attempts, headers) => {
      const limit = BODY_LIMITS.answerBytes;
      if ((declaredLength(headers) ?? 0) > limit) throw tooLarge(target, limit);
      const { text, complete } = await readCapped(body, limit);
      if (!complete) throw tooLarge(target, limit);
      const parsed = this.parseSuccess(spec, target, status, headers, this.maskEchoedKey(text));
      return { data: parsed.data as z.output<T>, nextCursor: parsed.nextCursor, status, attempts };
    });
  }

  /**
   * Any request (`cnv api`), through the same path as every other: auth, limiter, retries by
   * `idempotency`, dry-run, verbose log, typed errors. A 2xx answer must be JSON (an HTML page is
   * not the API's); its shape is not checked, and the key echoed in it or its headers is masked.
   */
  async requestRaw(spec: BaseSpec): Promise<RawResponse> {
    return this.run(spec, async (body, target, status, _attempts, headers) => {
      const limit = BODY_LIMITS.answerBytes;
      if ((declaredLength(headers) ?? 0) > limit) throw tooLarge(target, limit);
      const { text, complete } = await readCapped(body, limit);
      if (!complete) throw tooLarge(target, limit);
      const masked = this.maskEchoedKey(text);
      let json: unknown;
      try {
        json = masked.trim() === '' ? null : parseJson(masked);
      } catch {
        throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(masked, headers)}, not JSON`, status);
      }
      if (nestedDeeperThan(json, MAX_DEPTH)) throw tooLarge(target, 0, `it nests arrays and objects deeper than ${MAX_DEPTH} levels`);
      return { status, headers: this.shownHeaders(headers), json };
    });
  }

  /**
   * A paginated answer whose `data.<member>` array is read as it streams: each row goes to the
   * receiver that `receive` makes afresh for every attempt (a retried page starts over), so a
   * page of thousands of rows is never held whole. The envelope around the rows is validated as
   * `request` does; each row against `spec.row`.
   */
  async requestRows<P>(spec: RowsSpec, receive: () => RowReceiver<P>): Promise<P> {
    return this.run(spec, async (body, target, status, _attempts, headers) => {
      const { label } = target;
      const shape = (detail: string) => new ResponseShapeError(this.redact(`unexpected response from ${label}: ${detail}`));
      const rows = receive();
      if (this.opts.pageReader === 'whole') return this.wholePage(spec, body, target, status, headers, rows, shape);
      const splitter = new JsonRowSplitter(spec.member, (row, index, text) => {
        const checked = spec.row.safeParse(row);
        if (!checked.success) throw shape(describeIssues(checked.error, 3, `data.${spec.member}.${index}`));
        rows.row(row, text);
      }, (index) => {
        throw shape(`data.${spec.member}.${index}: expected an object`);
      }, BODY_LIMITS.rowBytes, MAX_DEPTH, BODY_LIMITS.aroundBytes);
      let head = '';
      // Only the body stream's own failures (a connection lost mid-page) are network errors
      // worth a retry; anything the reading itself throws ends the request.
      const settle = <T>(work: () => T): T => {
        try {
          return work();
        } catch (err) {
          if (err instanceof JsonSyntaxError) {
            // A page that began as a JSON object broke on the way (the API's, cut or corrupted);
            // anything else (an HTML page) was never the API's.
            if (head.trimStart().startsWith('{')) throw shape(`the body is not JSON (${err.message})`);
            throw notTheApi(target, `${label} answered ${status} with ${describeBody(head, headers)}, not JSON (${err.message})`, status);
          }
          if (err instanceof JsonTooLargeError) throw tooLarge(target, BODY_LIMITS.rowBytes, err.message, err.message.startsWith('row '));
          throw new NotRetried(err);
        }
      };
      // Decoded here, not with setEncoding (which undici's mock bodies ignore): a character may
      // be cut between two chunks.
      const decoder = new StringDecoder('utf8');
      const limit = BODY_LIMITS.pageBytes;
      if ((declaredLength(headers) ?? 0) > limit) throw tooLarge(target, limit);
      let size = 0;
      // The key echoed in a row, in any of its forms (escaped too), never reaches an export file.
      const masker = this.opts.apiKey.length >= 8 ? keyMasker(this.opts.apiKey) : undefined;
      for await (const chunk of body) {
        const decoded = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
        const text = masker ? masker.push(decoded) : decoded;
        size += (chunk as { length: number }).length;
        if (size > limit) throw tooLarge(target, limit);
        // The opening of the answer, to describe it if it is not JSON.
        if (head.length < 512) head += text.slice(0, 512);
        settle(() => splitter.write(text));
      }
      const doc = settle(() => {
        const rest = decoder.end();
        const last = masker ? masker.push(rest) + masker.end() : rest;
        // (A short answer is all held back by the masker until here.)
        if (head.length < 512) head += last.slice(0, 512);
        splitter.write(last);
        return splitter.end();
      });
      if (!isEnvelope(doc, 'data')) throw notTheApi(target, `${label} answered ${status} with ${describeBody(JSON.stringify(doc), headers)}`, status);
      const parsed = envelopeSchema(rowsData(spec.member), true).safeParse(doc);
      if (!parsed.success) throw shape(describeIssues(parsed.error));
      return settle(() => rows.end(parsed.data.pagination?.nextCursor ?? null));
    });
  }

  /** A page read whole (pageReader `whole`): the same checks, each row's text made by JSON.stringify. */
  private async wholePage<P>(
    spec: RowsSpec, body: ResponseBody, target: Target, status: number, headers: Dispatcher.ResponseData['headers'], rows: RowReceiver<P>, shape: (detail: string) => Error,
  ): Promise<P> {
    const limit = BODY_LIMITS.pageBytes;
    const { text, complete } = await readCapped(body, limit);
    if (!complete) throw tooLarge(target, limit);
    const doc = this.parseSuccess({ ...spec, data: rowsData(spec.member), paginated: true }, target, status, headers, this.maskEchoedKey(text));
    const list = (doc.data as Record<string, unknown[]>)[spec.member];
    list.forEach((row, index) => {
      const checked = spec.row.safeParse(row);
      if (!checked.success) throw shape(describeIssues(checked.error, 3, `data.${spec.member}.${index}`));
      rows.row(row as Record<string, unknown>, stringifyJson(row));
    });
    return rows.end(doc.nextCursor ?? null);
  }

  /** The attempt loop shared by every request: rate limit, send, retry, typed errors. */
  private async run<R>(
    spec: BaseSpec,
    onSuccess: (body: ResponseBody, target: Target, status: number, attempts: number, headers: Dispatcher.ResponseData['headers']) => Promise<R>,
  ): Promise<R> {
    const url = this.buildUrl(spec.path, spec.query);
    const body = spec.body === undefined ? undefined : stringifyJson(spec.body);
    const label = `${spec.method} ${url.pathname}`;
    const target: Target = { label, baseUrl: redactUrl(this.baseUrl), redact: this.redact };
    const maxWaitMs = this.opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    if (this.opts.dryRun && spec.method !== 'GET') {
      this.opts.dryRun({ method: spec.method, url: redactUrl(url.toString()), headers: this.headers(true, spec), body: spec.body });
      throw new DryRunStop();
    }
    const { logger } = this.opts;
    for (let attempt = 1; ; attempt++) {
      await this.opts.limiter.take(spec.signal);
      const started = this.opts.clock.now();
      logger.request({ method: spec.method, path: url.pathname + url.search, attempt, ...(logger.wantsBodies ? this.debugRequest(url, spec, body) : {}) });
      let failure: FailedAttempt & { error: Error; retryAfterMs?: number; answeredAt?: number; answer?: { headers: Dispatcher.ResponseData['headers']; text: string } };
      // The per-attempt time limit covers the answer's body too: released when the attempt is over.
      const deadline = attemptDeadline(this.opts.timeoutMs, spec.signal);
      try {
        const res = await this.send(url, spec, body, deadline.signal);
        // The debug log sees the body as its reader takes it (only then: a cost per chunk).
        const capture = logger.wantsBodies ? new BodyCapture() : undefined;
        const resBody = capture ? capture.wrap(res.body) : res.body;
        const answered = () => logger.response({
          method: spec.method, path: url.pathname, attempt, status: res.statusCode, ms: this.opts.clock.now() - started,
          ...(capture ? { headers: res.headers, body: capture.snapshot() } : {}),
        });
        if (res.statusCode >= 200 && res.statusCode < 300) {
          const value = await onSuccess(resBody, target, res.statusCode, attempt, res.headers).catch((err) => {
            res.body.destroy(); // an answer not read to its end would hold the connection
            if (err instanceof CliError || err instanceof NotRetried) answered();
            throw err;
          });
          answered();
          return value;
        }
        const { text, complete } = await readCapped(resBody, BODY_LIMITS.errorBytes);
        answered();
        const error = parseFailure(res.statusCode, res.headers, text, complete, target);
        // One reading of the wall clock: "try again after" must name the moment the server named.
        const answeredAt = Date.now();
        const retryAfterMs = parseRetryAfter(res.headers['retry-after'], answeredAt);
        // Never longer than cnv would wait itself: a paused bucket holds every other request too.
        if (res.statusCode === 429) this.opts.limiter.pause(Math.min(retryAfterMs ?? 1000, maxWaitMs));
        failure = { status: res.statusCode, error, retryAfterMs, answeredAt, answer: { headers: res.headers, text } };
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        if (err instanceof CliError) throw err;
        if (err instanceof NotRetried) throw err.error;
        const networkCode = networkErrorCode(err);
        logger.response({
          method: spec.method, path: url.pathname, attempt, status: networkCode, ms: this.opts.clock.now() - started,
        });
        failure = { networkCode, error: err as Error };
      } finally {
        deadline.release();
      }
      const retryable = isRetryable(failure, spec.idempotency);
      if (!retryable || attempt >= this.opts.maxAttempts) {
        if (failure.answer && failure.status !== undefined) spec.onErrorAnswer?.({ status: failure.status, headers: this.shownHeaders(failure.answer.headers), text: this.redact(failure.answer.text) });
        throw finalError(failure, target, attempt, retryable, spec.idempotency);
      }
      if ((failure.retryAfterMs ?? 0) > maxWaitMs) throw waitTooLong(failure.error, target, failure.retryAfterMs!, maxWaitMs, failure.answeredAt ?? Date.now());
      const delayMs = Math.max(backoffDelay(attempt, this.random), failure.retryAfterMs ?? 0);
      logger.retry({
        method: spec.method, path: url.pathname, attempt, delayMs, reason: String(failure.status ?? failure.networkCode),
      });
      await this.opts.clock.sleep(delayMs, spec.signal);
    }
  }

  private buildUrl(path: string, query?: RequestSpec<z.ZodType>['query']): URL {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private async send(url: URL, spec: BaseSpec, body: string | undefined, signal: AbortSignal): Promise<Answer> {
    const first = this.firstRequest;
    this.firstRequest = undefined;
    const send = first ?? (await (this.undici ??= this.loadUndici()));
    return send(url, { method: spec.method, headers: this.headers(false, spec), body, signal });
  }

  /**
   * undici's request() through the dispatcher, both loaded on first use; each attempt ends at its
   * signal (`endedBy`). An attempt that runs out of time while a proxy has not opened its tunnel
   * fails as the proxy's (ProxyError); any other failure through a proxy names it.
   */
  private async loadUndici(): Promise<Send> {
    const { dispatcher } = this.opts;
    const [{ request }, agent] = await Promise.all([import('./undici.js'), typeof dispatcher === 'function' ? dispatcher() : dispatcher]);
    const tunnels = (agent as Partial<Agent>).tunnels;
    if (!tunnels) return (url, opts) => endedBy(request(url, { ...opts, dispatcher: agent }), opts.signal, () => opts.signal.reason);
    return (url, opts) => endedBy(request(url, { ...opts, dispatcher: agent }), opts.signal, () => tunnels.failure(url, opts.signal.reason))
      .catch((err: unknown) => Promise.reject(opts.signal.aborted ? err : tunnels.failure(url, err)));
  }

  /** What the debug log shows of a request: the URL and headers as they may be shown (key masked), the body. */
  private debugRequest(url: URL, spec: BaseSpec, body: string | undefined) {
    const headers = this.headers(true, spec);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return { url: redactUrl(url.toString()), headers, body };
  }

  /** cnv's headers, the spec's own over them (`cnv api -H`), and the key's, which is always cnv's. */
  private headers(masked: boolean, spec: Pick<BaseSpec, 'auth' | 'headers'>): Record<string, string> {
    const headers: Record<string, string> = {
      ...(spec.auth !== false ? { 'x-api-key': masked ? maskKey(this.opts.apiKey) : this.opts.apiKey } : {}),
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'cnv',
    };
    for (const [name, value] of Object.entries(spec.headers ?? {})) if (name !== 'x-api-key') headers[name] = value;
    return headers;
  }

  private parseSuccess(spec: RequestSpec<z.ZodType>, target: Target, status: number, headers: Dispatcher.ResponseData['headers'], text: string) {
    let json: unknown;
    try {
      json = parseJson(text);
    } catch (err) {
      // As for pages: a JSON object that broke is the API's answer damaged, anything else not the API's.
      if (text.trimStart().startsWith('{')) throw new ResponseShapeError(this.redact(`unexpected response from ${target.label}: the body is not JSON (${(err as Error).message})`));
      throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(text, headers)}, not JSON`, status);
    }
    if (!isEnvelope(json, 'data')) throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(text, headers)}`, status);
    if (nestedDeeperThan(json, MAX_DEPTH)) throw tooLarge(target, 0, `it nests arrays and objects deeper than ${MAX_DEPTH} levels`);
    const parsed = envelopeSchema(spec.data, spec.paginated ?? false).safeParse(json);
    if (!parsed.success) {
      throw new ResponseShapeError(this.redact(`unexpected response from ${target.label}: ${describeIssues(parsed.error)}`));
    }
    return { data: parsed.data.data, nextCursor: parsed.data.pagination?.nextCursor };
  }

  /** An answer's headers as they may be shown: the key masked. */
  private shownHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
    const shown: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) shown[name] = Array.isArray(value) ? value.map((v) => this.redact(v)) : this.redact(String(value));
    }
    return shown;
  }

  /**
   * The key echoed anywhere in a success answer (a batch item's message), in any of its forms,
   * never reaches a report or a file: masked in the text before it is parsed (JSON can spell a
   * character only as itself or an escape, and both are masked).
   */
  private maskEchoedKey(text: string): string {
    return this.keyForms?.mayHold(text) ? this.keyForms.mask(text) : text;
  }

}

/** The base URL without a trailing slash, and without a final `/v2` (every path starts with it). */
function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v2$/i, '');
}

/** An object with the given member: the outline of the API's envelope. */
function isEnvelope(json: unknown, member: string): boolean {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && member in json;
}

/** An error met while reading a success answer that is not the connection's: never retried. */
class NotRetried {
  constructor(readonly error: unknown) {}
}

function networkErrorCode(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError') return 'ETIMEDOUT';
  return e?.code ?? e?.cause?.code ?? e?.name ?? 'ENETWORK';
}
