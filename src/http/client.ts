import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { request } from './undici.js';
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { ApiError, DryRunStop, ResponseShapeError, TransientError } from '../errors.js';
import { maskKey } from './redact.js';
import type { RequestLogger } from './logger.js';
import type { RateLimiter } from './rate-limiter.js';
import { backoffDelay, isRetryable, neverSent, parseRetryAfter, type FailedAttempt, type Idempotency } from './retry-policy.js';
import { describeIssues, envelopeSchema, errorBodySchema, rowsData } from './envelope.js';
import { JsonRowSplitter, JsonSyntaxError } from '../io/json-rows.js';

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
  limiter: RateLimiter;
  clock: Clock;
  logger: RequestLogger;
  /** Attempts in all, first one included. */
  maxAttempts: number;
  /** Per-attempt time limit. */
  timeoutMs: number;
  random?: () => number;
  userAgent?: string;
  /** When set, write requests are handed to it instead of being sent (--dry-run). */
  dryRun?: (request: { method: string; url: string; headers: Record<string, string>; body?: unknown }) => void;
}

interface BaseSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** `unsafe`: retried only when the request provably never reached the server. */
  idempotency: Idempotency;
  signal?: AbortSignal;
}

export interface RequestSpec<T extends z.ZodType> extends BaseSpec {
  /** Schema of the `data` member of a success answer. */
  data: T;
  /** Whether the answer carries `pagination.nextCursor`. */
  paginated?: boolean;
}

/** A paginated answer `{ data: { <member>: [row, …] }, pagination: { nextCursor } }`. */
export interface RowsSpec extends BaseSpec {
  member: string;
  /** Schema each row must match. */
  row: z.ZodType<Record<string, unknown>>;
}

/** Takes the rows of one attempt at a page, then makes the caller's page of them. */
export interface RowReceiver<P> {
  row(row: Record<string, unknown>): void;
  end(nextCursor: string | null): P;
}

export interface ApiResponse<T> {
  data: T;
  nextCursor?: string | null;
  status: number;
  attempts: number;
}

/** The one request path for every endpoint: auth header, rate limit, retries, validation, typed errors. */
export class HttpClient {
  private readonly opts: HttpClientOptions;
  private readonly random: () => number;

  constructor(opts: HttpClientOptions) {
    this.opts = opts;
    this.random = opts.random ?? Math.random;
  }

  async request<T extends z.ZodType>(spec: RequestSpec<T>): Promise<ApiResponse<z.output<T>>> {
    return this.run(spec, async (body, label, status, attempts) => {
      const parsed = this.parseSuccess(spec, label, await body.text());
      return { data: parsed.data as z.output<T>, nextCursor: parsed.nextCursor, status, attempts };
    });
  }

  /**
   * A paginated answer whose `data.<member>` array is read as it streams: each row goes to the
   * receiver that `receive` makes afresh for every attempt (a retried page starts over), so a
   * page of thousands of rows is never held whole. The envelope around the rows is validated as
   * `request` does; each row against `spec.row`.
   */
  async requestRows<P>(spec: RowsSpec, receive: () => RowReceiver<P>): Promise<P> {
    return this.run(spec, async (body, label) => {
      const shape = (detail: string) => new ResponseShapeError(`unexpected response from ${label}: ${detail}`);
      const rows = receive();
      const splitter = new JsonRowSplitter(spec.member, (row, index) => {
        const checked = spec.row.safeParse(row);
        if (!checked.success) throw shape(describeIssues(checked.error, 3, `data.${spec.member}.${index}`));
        rows.row(row);
      }, (index) => {
        throw shape(`data.${spec.member}.${index}: expected an object`);
      });
      // Only the body stream's own failures (a connection lost mid-page) are network errors
      // worth a retry; anything the reading itself throws ends the request.
      const settle = <T>(work: () => T): T => {
        try {
          return work();
        } catch (err) {
          if (err instanceof JsonSyntaxError) throw shape(`the body is not JSON (${err.message})`);
          throw new NotRetried(err);
        }
      };
      // Decoded here, not with setEncoding (which undici's mock bodies ignore): a character may
      // be cut between two chunks.
      const decoder = new StringDecoder('utf8');
      for await (const chunk of body) settle(() => splitter.write(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer)));
      const doc = settle(() => {
        splitter.write(decoder.end());
        return splitter.end();
      });
      const parsed = envelopeSchema(rowsData(spec.member), true).safeParse(doc);
      if (!parsed.success) throw shape(describeIssues(parsed.error));
      return settle(() => rows.end(parsed.data.pagination?.nextCursor ?? null));
    });
  }

  /** The attempt loop shared by every request: rate limit, send, retry, typed errors. */
  private async run<R>(spec: BaseSpec, onSuccess: (body: Dispatcher.ResponseData['body'], label: string, status: number, attempts: number) => Promise<R>): Promise<R> {
    const url = this.buildUrl(spec.path, spec.query);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const label = `${spec.method} ${url.pathname}`;
    if (this.opts.dryRun && spec.method !== 'GET') {
      this.opts.dryRun({ method: spec.method, url: url.toString(), headers: this.headers(true), body: spec.body });
      throw new DryRunStop();
    }
    for (let attempt = 1; ; attempt++) {
      await this.opts.limiter.take(spec.signal);
      const started = this.opts.clock.now();
      this.opts.logger.request({ method: spec.method, path: url.pathname + url.search, attempt });
      let failure: FailedAttempt & { error: Error; retryAfterMs?: number };
      try {
        const res = await this.send(url, spec, body);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          const value = await onSuccess(res.body, label, res.statusCode, attempt).catch((err) => {
            res.body.destroy(); // an answer not read to its end would hold the connection
            if (err instanceof ResponseShapeError || err instanceof NotRetried) {
              this.opts.logger.response({ method: spec.method, path: url.pathname, attempt, status: res.statusCode, ms: this.opts.clock.now() - started });
            }
            throw err;
          });
          this.opts.logger.response({ method: spec.method, path: url.pathname, attempt, status: res.statusCode, ms: this.opts.clock.now() - started });
          return value;
        }
        const text = await res.body.text();
        this.opts.logger.response({ method: spec.method, path: url.pathname, attempt, status: res.statusCode, ms: this.opts.clock.now() - started });
        const error = this.parseFailure(res.statusCode, text);
        const retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
        if (res.statusCode === 429) this.opts.limiter.pause(retryAfterMs ?? 1000);
        failure = { status: res.statusCode, error, retryAfterMs };
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        if (err instanceof ResponseShapeError) throw err;
        if (err instanceof NotRetried) throw err.error;
        const networkCode = networkErrorCode(err);
        this.opts.logger.response({
          method: spec.method, path: url.pathname, attempt, status: networkCode, ms: this.opts.clock.now() - started,
        });
        failure = { networkCode, error: err as Error };
      }
      const retryable = isRetryable(failure, spec.idempotency);
      if (!retryable || attempt >= this.opts.maxAttempts) throw finalError(failure, label, attempt, retryable, spec.idempotency);
      const delayMs = Math.max(backoffDelay(attempt, this.random), failure.retryAfterMs ?? 0);
      this.opts.logger.retry({
        method: spec.method, path: url.pathname, attempt, delayMs, reason: String(failure.status ?? failure.networkCode),
      });
      await this.opts.clock.sleep(delayMs, spec.signal);
    }
  }

  private buildUrl(path: string, query?: RequestSpec<z.ZodType>['query']): URL {
    const url = new URL(this.opts.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private send(url: URL, spec: BaseSpec, body: string | undefined) {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    return request(url, {
      method: spec.method,
      dispatcher: this.opts.dispatcher,
      headers: this.headers(false),
      body,
      signal,
    });
  }

  private headers(masked: boolean): Record<string, string> {
    return {
      'x-api-key': masked ? maskKey(this.opts.apiKey) : this.opts.apiKey,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'cnv',
    };
  }

  private parseSuccess(spec: RequestSpec<z.ZodType>, label: string, text: string) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ResponseShapeError(`unexpected response from ${label}: the body is not JSON`);
    }
    const parsed = envelopeSchema(spec.data, spec.paginated ?? false).safeParse(json);
    if (!parsed.success) {
      throw new ResponseShapeError(`unexpected response from ${label}: ${describeIssues(parsed.error)}`);
    }
    return { data: parsed.data.data, nextCursor: parsed.data.pagination?.nextCursor };
  }

  private parseFailure(status: number, text: string): ApiError {
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) return new ApiError(status, parsed.data.error.code, parsed.data.error.message);
    } catch {
      // not JSON: fall through to a generic error
    }
    const snippet = text.trim().slice(0, 200);
    return new ApiError(status, `http_${status}`, snippet === '' ? `HTTP ${status} with no error body` : snippet);
  }
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

function finalError(
  failure: FailedAttempt & { error: Error },
  label: string,
  attempts: number,
  retryable: boolean,
  idempotency: Idempotency,
): Error {
  const after = retryable && attempts > 1 ? ` (after ${attempts} attempts)` : '';
  if (failure.error instanceof ApiError) {
    if (!after) return failure.error;
    return new ApiError(failure.error.status, failure.error.code, `${failure.error.message}${after}`);
  }
  const code = failure.networkCode ?? 'network_error';
  const reason = failure.error.message || code;
  return new TransientError(`${label} failed: ${reason} [${code}]${after}`, {
    code: 'network_error',
    // Repeating a request that may have been applied (a workflow trigger) could apply it twice.
    hint: idempotency === 'unsafe' && !neverSent(failure)
      ? 'the request may have reached the server and been applied: check before sending it again'
      : 'check the base URL and your network, then try again',
    cause: failure.error,
  });
}
