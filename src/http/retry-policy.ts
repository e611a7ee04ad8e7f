/** Statuses worth another attempt: the server may answer differently later. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Network error codes that prove the request never reached the server. */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // The proxy refused the tunnel or never opened it: nothing went through (src/http/proxy-tunnel.ts).
  'PROXY_TUNNEL_FAILED',
]);

interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 20_000 };

/**
 * Longest wait a Retry-After may ask for before cnv gives up instead (exit 7, saying when to
 * try again): an export holds its lock while it waits. `--max-retry-wait` / CNV_MAX_RETRY_WAIT.
 */
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/** Full-jitter exponential backoff: uniform in [0, min(cap, base * 2^(retry-1))]. */
export function backoffDelay(retry: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/** Retry-After as delta-seconds or an HTTP-date, in milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export type Idempotency = 'safe' | 'unsafe';

export interface FailedAttempt {
  status?: number;
  /** Network error code (node or undici) when there was no answer. */
  networkCode?: string;
}

/** True when the request provably never reached the server, so even a non-idempotent one may be sent again. */
export function neverSent(attempt: FailedAttempt): boolean {
  if (attempt.status === 429) return true;
  return attempt.networkCode !== undefined && NEVER_SENT_CODES.has(attempt.networkCode);
}

/** Whether a failed attempt should be tried again (the attempt budget is checked by the caller). */
export function isRetryable(attempt: FailedAttempt, idempotency: Idempotency): boolean {
  if (idempotency === 'unsafe') return neverSent(attempt);
  if (attempt.status !== undefined) return RETRYABLE_STATUSES.has(attempt.status);
  return attempt.networkCode !== undefined;
}
