import type { Dispatcher } from 'undici';
import { ApiError, ExitCode, GatewayError, NotTheApiError, TransientError } from '../errors.js';
import { errorBodySchema } from './envelope.js';
import { MAX_WRITE_BYTES, sizeText } from '../limits/limits.js';
import { describeBody, redirectTarget } from './foreign.js';
import { ProxyError } from './proxy-error.js';
import { RETRYABLE_STATUSES, neverSent, type FailedAttempt, type Idempotency } from './retry-policy.js';

/** Longest error code and message kept from an error body; an API's are short. */
const MAX_CODE_CHARS = 64;
const MAX_MESSAGE_CHARS = 1000;

/** What the request is and where it went, for the messages of its errors. */
export interface Target {
  label: string;
  /** The base URL as it may be shown (credentials redacted). */
  baseUrl: string;
  redact: (text: string) => string;
}

/**
 * An error answer whose body is not the API's error envelope. While the request is retried it is
 * only a failed attempt; the last one becomes a NotTheApiError, or a TransientError for the
 * statuses a gateway gives when the API behind it fails (see `finalError`).
 */
class ForeignAnswer extends Error {
  constructor(
    readonly status: number,
    readonly what: string,
    readonly redirect: boolean,
  ) {
    super(what);
  }
}

/** The typed error of one non-2xx answer: the API's own (ApiError) or a foreign one. */
export function parseFailure(
  {
    status,
    headers,
    text,
    complete,
  }: { status: number; headers: Dispatcher.ResponseData['headers']; text: string; complete: boolean },
  target: Target,
): ApiError | ForeignAnswer {
  if (complete) {
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) {
        const { code, message } = parsed.data.error;
        // Redacted before it is shortened: a key cut in two would no longer be recognised.
        return new ApiError(
          status,
          shorten(target.redact(code), MAX_CODE_CHARS),
          shorten(target.redact(message), MAX_MESSAGE_CHARS),
        );
      }
    } catch {
      // not JSON: a foreign answer
    }
  }
  if (status >= 300 && status < 400) {
    const where = redirectTarget(headers);
    return new ForeignAnswer(
      status,
      target.redact(`${target.label} answered ${status}, a redirect${where ? ` to ${where}` : ''}`),
      true,
    );
  }
  return new ForeignAnswer(
    status,
    target.redact(`${target.label} answered ${status} with ${describeBody(text, headers, complete)}`),
    false,
  );
}

/** A 2xx answer that is not the API's envelope. */
export function notTheApi(target: Target, what: string, status?: number): NotTheApiError {
  return new NotTheApiError(target.redact(`this does not look like the API at ${target.baseUrl}: ${what}`), { status });
}

/**
 * An answer past a limit (src/limits/limits.ts): not retried, the rest is not read. `row`: an export
 * row past its limit, which is more likely the API's answer about a huge record than another
 * server's. `limit` 0: past the nesting limit.
 */
export function tooLarge(target: Target, limit: number, detail?: string, row = false): NotTheApiError {
  const huge =
    `a record holds values larger than the ${sizeText(MAX_WRITE_BYTES)} cnv writes in one row ` +
    '(stored by another tool?)';
  const limits = 'the limits are listed in docs/guarantees.md';
  const hint = row
    ? `${huge}; ${limits}`
    : limit === 0
      ? `the API's answers nest far less: check --base-url; ${limits}`
      : `the API's answers are far smaller, unless ${huge}: check --base-url; ${limits}`;
  return new NotTheApiError(
    `${target.label}: the answer is larger than cnv reads (${detail ?? `more than ${sizeText(limit)}`})`,
    { code: 'response_too_large', hint },
  );
}

/** The error a request ends with once it is not (or no longer) retried. */
export function finalError(
  failure: FailedAttempt & { error: Error; retryAfterMs?: number; answeredAt?: number },
  target: Target,
  { attempts, retryable, idempotency }: { attempts: number; retryable: boolean; idempotency: Idempotency },
): Error {
  const after = retryable && attempts > 1 ? ` (after ${attempts} attempts)` : '';
  const { error } = failure;
  // The API's own 4xx (not 408, a timeout) is a definite refusal: nothing was applied.
  const refused = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408;
  const applied =
    idempotency === 'unsafe' && !neverSent(failure) && !refused
      ? 'the request may have reached the server and been applied: check before sending it again'
      : undefined;
  if (error instanceof ApiError) {
    // The server said when to come back: say it (retries used up, or none allowed).
    const when =
      failure.retryAfterMs !== undefined && error.exitCode === ExitCode.transient
        ? retryAt(failure.retryAfterMs, failure.answeredAt ?? Date.now())
        : undefined;
    if (!after && !when && !applied) return error;
    return new ApiError(
      error.status,
      error.code,
      `${error.message}${after}`,
      applied ?? (when ? `try again after ${when}` : undefined),
    );
  }
  if (error instanceof ForeignAnswer) {
    // A gateway's 502/503/504 page (or a CDN's 429) while the API behind it is down is a
    // hiccup: transient, as the API's own 5xx. Any other foreign answer is the wrong server.
    if (RETRYABLE_STATUSES.has(error.status)) {
      const why = `a proxy or gateway in front of it failed, or ${target.baseUrl} is not the API`;
      return new GatewayError(
        error.status,
        `${error.what}, not an answer of the API${after}: ${why}`,
        applied ?? 'try again later; if it keeps failing, check --base-url (`cnv doctor` tells whether it is the API)',
      );
    }
    return new NotTheApiError(`this does not look like the API at ${target.baseUrl}: ${error.what}`, {
      status: error.status,
      hint: error.redirect
        ? 'cnv does not follow redirects (the key would go along): check --base-url, and use the address the API answers at'
        : undefined,
    });
  }
  if (error instanceof ProxyError) {
    return new TransientError(target.redact(`${target.label} failed: ${error.message}${after}`), {
      code: 'proxy_error',
      hint:
        applied ??
        'check the proxy cnv was given (HTTPS_PROXY or HTTP_PROXY; NO_PROXY names hosts reached without it), then try again',
      cause: error,
    });
  }
  const code = failure.networkCode ?? 'network_error';
  const reason = error.message || code;
  return new TransientError(target.redact(`${target.label} failed: ${reason} [${code}]${after}`), {
    code: 'network_error',
    // Repeating a request that may have been applied (a workflow trigger) could apply it twice.
    hint: applied ?? 'check the base URL and your network, then try again',
    cause: error,
  });
}

/** The server asks for a longer wait than cnv allows: give up now, saying when to try again. */
export function waitTooLong(
  error: Error,
  target: Target,
  { waitMs, maxWaitMs, now }: { waitMs: number; maxWaitMs: number; now: number },
): TransientError {
  const at = retryAt(waitMs, now);
  const base = error instanceof ForeignAnswer ? error.what : error.message;
  const asks = `the server asks to wait ${duration(waitMs)} (Retry-After) before trying again`;
  const retry = at ? `try again after ${at}` : 'try again much later';
  return new TransientError(`${base}; ${asks}, longer than the ${duration(maxWaitMs)} cnv waits at most`, {
    code: error instanceof ApiError ? error.code : 'retry_later',
    hint: `${retry}, or allow a longer wait with --max-retry-wait SECONDS (or CNV_MAX_RETRY_WAIT)`,
  });
}

/** A wait in words: `45 s`, `20 min`, `5 h`, `11.6 days`. */
function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  const days = s / 86_400;
  return days < 1e6 ? `${days.toFixed(1)} days` : 'more than a million days';
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** When a wait of `waitMs` from `now` ends, as an ISO time; undefined past what a date can hold. */
function retryAt(waitMs: number, now: number): string | undefined {
  const when = new Date(now + waitMs);
  return Number.isFinite(when.getTime()) ? when.toISOString() : undefined;
}

/** The code of a failure to get an answer (node's or undici's; a timeout is ETIMEDOUT). */
export function networkErrorCode(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError') return 'ETIMEDOUT';
  return e?.code ?? e?.cause?.code ?? e?.name ?? 'ENETWORK';
}
