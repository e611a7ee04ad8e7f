import { setMaxListeners } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from './clock.js';
import { configDir, configDirWhere } from './config/paths.js';
import type { ProfileStore } from './config/profiles.js';
import type { Credentials } from './config/resolve.js';
import type { HttpClient } from './http/client.js';
import { makeRedactor, maskKey } from './http/redact.js';
import { firstRequestAllowed, sendFirst } from './http/first-request.js';
import { DEFAULT_MAX_RETRY_WAIT_MS } from './http/retry-policy.js';
import { compiledQuery, queryText } from './io/query.js';
import { stringifyJson } from './lib/exact-number.js';
import { escapeControl } from './lib/terminal-text.js';
import type { RateLimiter } from './http/rate-limiter.js';

/** The process streams a command may use, and what they are attached to. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

/** Options every command accepts (see src/cli/global-options.ts). */
export interface GlobalOptions {
  profile?: string;
  apiKey?: string;
  baseUrl?: string;
  json: boolean;
  format?: 'table' | 'json' | 'ndjson' | 'csv';
  /** -q/--query: a JMESPath expression applied to the JSON output. */
  query?: string;
  verbose: boolean;
  /** Each request and response in full on stderr (--debug, CNV_DEBUG=api); implies `verbose`. */
  debug: boolean;
  quiet: boolean;
  progress: boolean;
  color: boolean;
  timeout: number;
  maxRetries: number;
  /** Longest Retry-After wait honoured, in ms (--max-retry-wait, CNV_MAX_RETRY_WAIT). */
  maxRetryWaitMs: number;
  /** Print write requests instead of sending them. */
  dryRun: boolean;
}

export const DEFAULT_GLOBALS: GlobalOptions = {
  json: false,
  verbose: false,
  debug: false,
  quiet: false,
  progress: true,
  color: true,
  timeout: 30_000,
  maxRetries: 3,
  maxRetryWaitMs: DEFAULT_MAX_RETRY_WAIT_MS,
  dryRun: false,
};

/**
 * Requests per second the client allows itself: a steady rate a little under the documented 200,
 * with a small burst, so that a server enforcing the limit with a small bucket never sees a spike.
 * Processes of one account on one machine split it (src/http/rate-share.ts).
 */
export const CLIENT_RATE = { ratePerSecond: 195, burst: 3 };

export interface ContextDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  signal?: AbortSignal;
  /** Replaces the proxy-aware keep-alive agent (tests pass undici's MockAgent). */
  dispatcher?: Dispatcher;
  random?: () => number;
}

/** What every command gets; commands never touch process, conf or undici directly. */
export interface Context {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  globals: GlobalOptions;
  /** Profile store (opened on first use). */
  config(): Promise<ProfileStore>;
  /** Key, base URL and profile in force (resolved once). */
  credentials(): Promise<Credentials>;
  /** The HTTP client for the credentials in force (built once). */
  http(): Promise<HttpClient>;
  /**
   * Starts loading the HTTP stack (modules, agent) in the background, so that a command with
   * local work to do first (a batch reading its file) sends its first request sooner. Never
   * fails: a failure surfaces at http(). Credentials are not resolved here (their errors and
   * warnings come with the first request, as without it).
   */
  prepareHttp(): void;
  /** The process-wide rate limiter. */
  limiter(): Promise<RateLimiter>;
  /** A line on stderr, prefixed `warning:`, unless --quiet (redacted, control characters escaped). */
  warn(message: string): void;
  /** A line on stderr unless --quiet (redacted, control characters escaped). */
  info(message: string): void;
  /** Masks every API key the context knows of. */
  redact(text: string): string;
  /** Whether progress display (spinners, counters) is allowed. */
  showProgress(): boolean;
  /** Registers cleanup to run before the process exits (closing the agent, releasing locks). */
  onDispose(fn: () => Promise<void> | void): void;
  dispose(): Promise<void>;
}

/** A dry run's request as printed: JSON, or what -q selects from it (compiled before the command ran). */
function dryRunText(request: Record<string, unknown>, query: string | undefined): string {
  const compiled = query === undefined ? undefined : compiledQuery(query);
  return compiled ? queryText(compiled(request), false) : stringifyJson(request, 2) + '\n';
}

/** The modules an HttpClient needs. */
function loadHttpStack() {
  return Promise.all([import('./http/client.js'), import('./http/logger.js'), import('./http/debug-logger.js')]);
}

/** The undici dispatcher, made on first use: the keep-alive agent (closed on dispose), or the one the caller gave. */
function dispatcherOnce(deps: ContextDeps, disposers: Array<() => Promise<void> | void>): () => Promise<Dispatcher> {
  let made: Promise<Dispatcher> | undefined;
  return () =>
    (made ??= deps.dispatcher
      ? Promise.resolve(deps.dispatcher)
      : import('./http/agent.js').then(({ createAgent }) => {
          const agent = createAgent();
          disposers.push(() => agent.close());
          return agent;
        }));
}

export function createContext(deps: ContextDeps): Context {
  const clock = deps.clock ?? systemClock;
  const signal = deps.signal ?? new AbortController().signal;
  // Every request waiting on the rate limiter listens to this one signal.
  setMaxListeners(0, signal);
  const disposers: Array<() => Promise<void> | void> = [];
  let store: Promise<ProfileStore> | undefined;
  let creds: Promise<Credentials> | undefined;
  let client: Promise<HttpClient> | undefined;
  let stack: ReturnType<typeof loadHttpStack> | undefined;
  const dispatcher = dispatcherOnce(deps, disposers);
  // The first request goes through node:http unless undici is wanted from the start: a proxy
  // (only undici's agent tunnels), a dispatcher given (tests), or a batch that prepared it.
  let firstRequest = deps.dispatcher === undefined && firstRequestAllowed(deps.env);
  let rateLimiter: Promise<RateLimiter> | undefined;
  let redactor = makeRedactor([deps.env.CNV_API_KEY]);
  // The account's rate is split with the other cnv processes of this machine that use it, from
  // a process's second request on: one request cannot strain the limit, so a one-shot command
  // (contacts get) never pays for the lease, and a run's first requests fit in the server's bucket.
  const shareRate = (limiter: RateLimiter, credentials: Credentials) => {
    let joined: Promise<{ stop(): Promise<void> } | undefined> | undefined;
    let reservations = 0;
    limiter.onReserve = () => {
      if (++reservations < 2 || joined) return;
      joined = import('./http/rate-share.js').then(({ RateShare }) =>
        RateShare.join({
          configDir: configDir(deps.env),
          account: { baseUrl: credentials.baseUrl, keyId: maskKey(credentials.apiKey) },
          limiter,
          fullRate: CLIENT_RATE.ratePerSecond,
          // A run slowed by other processes says so once, and where to look (a lease left behind).
          onShared: ({ peers, rate, dir }) => ctx.warn(`${peers - 1} other cnv process${peers > 2 ? 'es' : ''} of this machine send${peers > 2 ? '' : 's'} with this account: this run shares its rate, at most ${Math.round(rate)} requests/s (leases in ${dir}; CNV_RATE_SHARE=off stops sharing)`),
        }),
      );
    };
    disposers.push(() => joined?.then((share) => share?.stop(), () => {}));
  };
  const ctx: Context = {
    io: deps.io,
    env: deps.env,
    clock,
    signal,
    globals: { ...DEFAULT_GLOBALS },
    config() {
      store ??= import('./config/profiles.js').then(({ ProfileStore }) => ProfileStore.open(configDir(deps.env), configDirWhere(deps.env)));
      return store;
    },
    credentials() {
      creds ??= (async () => {
        const { resolveCredentials } = await import('./config/resolve.js');
        const resolved = resolveCredentials(
          { apiKeyFlag: ctx.globals.apiKey, baseUrlFlag: ctx.globals.baseUrl, profileFlag: ctx.globals.profile, env: deps.env },
          await ctx.config(),
        );
        redactor = makeRedactor([resolved.apiKey, deps.env.CNV_API_KEY, ctx.globals.apiKey]);
        for (const w of resolved.warnings) ctx.warn(w);
        return resolved;
      })();
      return creds;
    },
    limiter() {
      rateLimiter ??= import('./http/rate-limiter.js').then(({ RateLimiter }) => new RateLimiter({ ...CLIENT_RATE, clock }));
      return rateLimiter;
    },
    http() {
      client ??= (async () => {
        const credentials = await ctx.credentials();
        const [{ HttpClient }, { stderrLogger, silentLogger }, { debugLogger }] = await (stack ??= loadHttpStack());
        const limiter = await ctx.limiter();
        if (!ctx.globals.dryRun && deps.env.CNV_RATE_SHARE !== 'off') shareRate(limiter, credentials);
        return new HttpClient({
          baseUrl: credentials.baseUrl,
          apiKey: credentials.apiKey,
          dispatcher,
          firstRequest: firstRequest ? sendFirst : undefined,
          limiter,
          clock,
          logger: ctx.globals.debug
            ? debugLogger(deps.io.stderr, (s) => ctx.redact(s))
            : ctx.globals.verbose ? stderrLogger(deps.io.stderr, (s) => ctx.redact(s)) : silentLogger,
          maxAttempts: ctx.globals.maxRetries + 1,
          timeoutMs: ctx.globals.timeout,
          maxRetryWaitMs: ctx.globals.maxRetryWaitMs,
          // Only to measure the export page splitter against (docs/performance.md).
          pageReader: deps.env.CNV_PAGE_READER === 'whole' ? 'whole' : 'stream',
          random: deps.random,
          dryRun: ctx.globals.dryRun
            ? (request) => deps.io.stdout.write(ctx.redact(dryRunText({ dryRun: true, ...request }, ctx.globals.query)))
            : undefined,
        });
      })();
      return client;
    },
    prepareHttp() {
      (stack ??= loadHttpStack()).catch(() => {});
      firstRequest = false;
      dispatcher().catch(() => {});
      ctx.limiter().catch(() => {});
      // What credentials() loads, without resolving them.
      ctx.config().catch(() => {});
      import('./config/resolve.js').catch(() => {});
    },
    warn(message) {
      if (!ctx.globals.quiet) deps.io.stderr.write(escapeControl(ctx.redact(`warning: ${message}`), '\n\t') + '\n');
    },
    info(message) {
      if (!ctx.globals.quiet) deps.io.stderr.write(escapeControl(ctx.redact(message), '\n\t') + '\n');
    },
    redact(text) {
      return redactor(text);
    },
    showProgress() {
      const ci = deps.env.CI !== undefined && deps.env.CI !== '' && deps.env.CI !== 'false' && deps.env.CI !== '0';
      // A terminal that reports no width (script, docker -t without a size) makes a spinner redraw endlessly.
      const columns = (deps.io.stderr as { columns?: number }).columns;
      const sized = columns === undefined || columns > 0;
      // The debug log's many lines on stderr and a spinner redrawing over them would garble both.
      return deps.io.stderrIsTTY && sized && !ctx.globals.quiet && ctx.globals.progress && !ctx.globals.debug && !ci;
    },
    onDispose(fn) {
      disposers.push(fn);
    },
    async dispose() {
      for (const fn of disposers.splice(0).reverse()) await fn();
    },
  };
  return ctx;
}
