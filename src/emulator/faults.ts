import { EmulatorError } from './error-answer.js';

/** Steady fault settings (also the startup options). */
interface FaultRates {
  failRate: number;
  latencyMs: number;
  dropRate: number;
}

/** Current fault state, as returned by the admin faults routes. */
interface FaultSnapshot extends FaultRates {
  failNext: number;
  dropBeforeNext: number;
  dropAfterNext: number;
  cutBodyNext: number;
  rateLimitNext: number;
  retryAfter: number;
  status5xxNext: Array<{ status: number; count: number }>;
}

const GATEWAY_CODES: Record<number, [string, string]> = {
  502: ['bad_gateway', 'Bad gateway (injected fault)'],
  503: ['service_unavailable', 'Service unavailable (injected fault)'],
  504: ['gateway_timeout', 'Gateway timeout (injected fault)'],
};

/**
 * Fault injection: random failures, latency and dropped sockets, plus one-shot queues set
 * through POST /_emulator/faults. One-shots are consumed in the order: dropBeforeNext,
 * failNext, status5xxNext, rateLimitNext; then the random rates apply.
 */
export class FaultController {
  private state: FaultSnapshot;

  constructor(
    rates: Partial<FaultRates> = {},
    private readonly random: () => number = Math.random,
  ) {
    this.state = { ...emptyState(), ...pickRates(rates) };
  }

  get latencyMs(): number {
    return this.state.latencyMs;
  }

  snapshot(): FaultSnapshot {
    return structuredClone(this.state);
  }

  /** Validates and applies a faults body; given keys replace the current values. */
  configure(input: Record<string, unknown>): FaultSnapshot {
    const next = structuredClone(this.state);
    for (const key of ['failRate', 'dropRate'] as const) {
      if (input[key] !== undefined) next[key] = num(input[key], key, 0, 1, false);
    }
    if (input.latencyMs !== undefined) next.latencyMs = num(input.latencyMs, 'latencyMs', 0, 600_000, false);
    for (const key of ['failNext', 'dropBeforeNext', 'dropAfterNext', 'cutBodyNext', 'rateLimitNext'] as const) {
      if (input[key] !== undefined) next[key] = num(input[key], key, 0, 1_000_000, true);
    }
    if (input.retryAfter !== undefined) next.retryAfter = num(input.retryAfter, 'retryAfter', 0, 3600, true);
    if (input.status5xxNext !== undefined) next.status5xxNext = parse5xx(input.status5xxNext);
    this.state = next;
    return this.snapshot();
  }

  /** Clears every fault, including the startup rates. */
  reset(): FaultSnapshot {
    this.state = emptyState();
    return this.snapshot();
  }

  /** Decides (and consumes one-shots) for one incoming /v2 request. */
  before(): { kind: 'none' } | { kind: 'drop' } | { kind: 'error'; error: EmulatorError } {
    const s = this.state;
    if (s.dropBeforeNext > 0) {
      s.dropBeforeNext -= 1;
      return { kind: 'drop' };
    }
    if (s.failNext > 0) {
      s.failNext -= 1;
      return { kind: 'error', error: internal() };
    }
    const head = s.status5xxNext[0];
    if (head) {
      head.count -= 1;
      if (head.count <= 0) s.status5xxNext.shift();
      const [code, message] = GATEWAY_CODES[head.status];
      return { kind: 'error', error: new EmulatorError(head.status, code, message) };
    }
    if (s.rateLimitNext > 0) {
      s.rateLimitNext -= 1;
      return { kind: 'error', error: rateLimited(s.retryAfter) };
    }
    if (s.dropRate > 0 && this.random() < s.dropRate) return { kind: 'drop' };
    if (s.failRate > 0 && this.random() < s.failRate) return { kind: 'error', error: internal() };
    return { kind: 'none' };
  }

  /** True (once per queued count) when the handled request's socket must be dropped. */
  takeDropAfter(): boolean {
    if (this.state.dropAfterNext <= 0) return false;
    this.state.dropAfterNext -= 1;
    return true;
  }

  /** True (once per queued count) when the handled request's answer must stop halfway. */
  takeCutBody(): boolean {
    if (this.state.cutBodyNext <= 0) return false;
    this.state.cutBodyNext -= 1;
    return true;
  }
}

/** The 429 answer, used by the rate limiter and by rateLimitNext. */
export function rateLimited(retryAfterSeconds = 1, message = 'Rate limit exceeded; retry later'): EmulatorError {
  return new EmulatorError(429, 'rate_limited', message, { 'retry-after': String(retryAfterSeconds) });
}

function internal(): EmulatorError {
  return new EmulatorError(500, 'internal_error', 'Internal server error (injected fault)');
}

function emptyState(): FaultSnapshot {
  return {
    failRate: 0,
    latencyMs: 0,
    dropRate: 0,
    failNext: 0,
    dropBeforeNext: 0,
    dropAfterNext: 0,
    cutBodyNext: 0,
    rateLimitNext: 0,
    retryAfter: 1,
    status5xxNext: [],
  };
}

function pickRates(r: Partial<FaultRates>): Partial<FaultRates> {
  const out: Partial<FaultRates> = {};
  if (r.failRate !== undefined) out.failRate = r.failRate;
  if (r.latencyMs !== undefined) out.latencyMs = r.latencyMs;
  if (r.dropRate !== undefined) out.dropRate = r.dropRate;
  return out;
}

function num(v: unknown, name: string, min: number, max: number, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    const what = integer ? 'an integer' : 'a number';
    throw new EmulatorError(400, 'invalid_request', `${name} must be ${what} from ${min} to ${max}`);
  }
  return v;
}

function parse5xx(v: unknown): Array<{ status: number; count: number }> {
  const items = Array.isArray(v) ? v : [v];
  const parsed = items.map((item) => {
    const o = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (!(Number(o.status) in GATEWAY_CODES) || typeof o.status !== 'number') {
      throw new EmulatorError(400, 'invalid_request', 'status5xxNext.status must be 502, 503 or 504');
    }
    return { status: o.status, count: num(o.count ?? 1, 'status5xxNext.count', 0, 1_000_000, true) };
  });
  return parsed.filter((x) => x.count > 0);
}
