import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import { configDir } from '../config/paths.js';
import type { Credentials } from '../config/resolve.js';
import type { ClientChoice, ContextDeps, GlobalOptions } from '../context.js';
import type { HttpClient } from '../http/client.js';
import { firstRequestAllowed, sendFirst } from '../http/first-request.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { accountIdentity } from '../config/account-identity.js';
import { compiledQuery, documentQueryText } from '../output/query.js';
import { stringifyJson } from '../lib/exact-number.js';
import { userAgent } from '../cmdutil/version.js';

/**
 * Requests per second the client allows itself: a steady rate a little under the documented 200,
 * with a small burst, so that a server enforcing the limit with a small bucket never sees a spike.
 * Processes of one account on one machine split it (src/http/rate-share.ts).
 */
const CLIENT_RATE = { ratePerSecond: 195, burst: 3 };

/** The modules an HttpClient needs. */
function loadHttpStack() {
  return Promise.all([import('../http/client.js'), import('../http/logger.js'), import('../http/debug-logger.js')]);
}

/** A dry run's request as printed: JSON, or what -q selects from it (compiled before the command ran). */
function dryRunText(
  request: Record<string, unknown>,
  query: string | undefined,
  warn: (message: string) => void,
): string {
  return query !== undefined && compiledQuery(query)
    ? documentQueryText(query, request, false, warn)
    : stringifyJson(request, 2) + '\n';
}

/**
 * The context's HttpClient (one per client choice, most runs one) and what it is made of, each
 * made on first use and shared by the clients: the modules, the
 * undici dispatcher (the keep-alive agent, destroyed on dispose, or the one the caller gave), the
 * process-wide rate limiter, and the share of the account's rate with other processes.
 */
export class HttpStack {
  private readonly clients = new Map<string, Promise<HttpClient>>();
  private sharing = false;
  private modules: ReturnType<typeof loadHttpStack> | undefined;
  private agent: Promise<Dispatcher> | undefined;
  private rateLimiter: Promise<RateLimiter> | undefined;
  // The first request goes through node:http unless undici is wanted from the start: a proxy
  // (only undici's agent tunnels), a dispatcher given (tests), or a batch that prepared it.
  private firstRequest: boolean;

  constructor(
    private readonly of: {
      deps: ContextDeps;
      clock: Clock;
      globals(): Readonly<GlobalOptions>;
      credentials(): Promise<Credentials>;
      redact(text: string): string;
      warn(message: string): void;
      onDispose(fn: () => Promise<void> | void): void;
    },
  ) {
    this.firstRequest = of.deps.dispatcher === undefined && firstRequestAllowed(of.deps.env);
  }

  http(choice: ClientChoice = {}): Promise<HttpClient> {
    const key = JSON.stringify(choice);
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = this.make(choice)));
    return client;
  }

  /** See Context.prepareHttp. */
  prepare(): void {
    (this.modules ??= loadHttpStack()).catch(() => {});
    this.firstRequest = false;
    this.dispatcher().catch(() => {});
    this.limiter().catch(() => {});
  }

  private limiter(): Promise<RateLimiter> {
    return (this.rateLimiter ??= import('../http/rate-limiter.js').then(
      ({ RateLimiter }) => new RateLimiter({ ...CLIENT_RATE, clock: this.of.clock }),
    ));
  }

  private dispatcher(): Promise<Dispatcher> {
    const given = this.of.deps.dispatcher;
    return (this.agent ??= given
      ? Promise.resolve(given)
      : import('../http/agent.js').then(({ createAgent }) => {
          const agent = createAgent(this.of.globals().timeout);
          // Destroyed, not closed: close() waits for every request still queued, and one behind a
          // tunnel a proxy never opens (abandoned at --timeout or Ctrl-C) held the exit for minutes.
          this.of.onDispose(() => agent.destroy());
          return agent;
        }));
  }

  private async make(choice: ClientChoice): Promise<HttpClient> {
    const { deps, clock, redact } = this.of;
    const credentials = await this.of.credentials();
    const [{ HttpClient }, { stderrLogger, silentLogger }, { debugLogger }] = await (this.modules ??= loadHttpStack());
    const limiter = await this.limiter();
    const globals = { ...this.of.globals(), ...choice };
    if (!globals.dryRun && deps.env.CNV_RATE_SHARE !== 'off' && !this.sharing) {
      this.sharing = true;
      this.shareRate(limiter, credentials);
    }
    return new HttpClient({
      baseUrl: credentials.baseUrl,
      apiKey: credentials.apiKey,
      dispatcher: () => this.dispatcher(),
      firstRequest: this.firstRequest ? sendFirst : undefined,
      limiter,
      clock,
      logger: globals.debug
        ? debugLogger(deps.io.stderr, redact)
        : globals.verbose
          ? stderrLogger(deps.io.stderr, redact)
          : silentLogger,
      maxAttempts: globals.maxRetries + 1,
      timeoutMs: globals.timeout,
      maxRetryWaitMs: globals.maxRetryWaitMs,
      random: deps.random,
      userAgent: userAgent(),
      dryRun: globals.dryRun
        ? (request) =>
            deps.io.stdout.write(
              redact(dryRunText({ dryRun: true, ...request }, globals.query, (message) => this.of.warn(message))),
            )
        : undefined,
    });
  }

  /**
   * The account's rate is split with the other cnv processes of this machine that use it, from
   * a process's second request on: one request cannot strain the limit, so a one-shot command
   * (contacts get) never pays for the lease, and a run's first requests fit in the server's bucket.
   */
  private shareRate(limiter: RateLimiter, credentials: Credentials): void {
    const { deps, warn } = this.of;
    let joined: Promise<{ stop(): Promise<void> } | undefined> | undefined;
    let reservations = 0;
    limiter.onReserve = () => {
      if (++reservations < 2 || joined) return;
      joined = import('../http/rate-share.js').then(({ RateShare }) =>
        RateShare.join({
          configDir: configDir(deps.env),
          account: accountIdentity(credentials.baseUrl, credentials.apiKey),
          limiter,
          fullRate: CLIENT_RATE.ratePerSecond,
          // A run slowed by other processes says so once, and where to look (a lease left behind).
          onShared: ({ peers, rate, dir }) =>
            warn(
              `${peers - 1} other cnv process${peers > 2 ? 'es' : ''} of this machine send${peers > 2 ? '' : 's'} with this ` +
                `account: this run shares its rate, at most ${Math.round(rate)} requests/s (leases in ${dir}; ` +
                'CNV_RATE_SHARE=off stops sharing)',
            ),
        }),
      );
      // Its share known before it sends on (a few milliseconds of file work): four runs started
      // together would otherwise each send at the full rate meanwhile, together past the limit.
      limiter.holdUntil(joined);
    };
    this.of.onDispose(() =>
      joined?.then(
        (share) => share?.stop(),
        () => {},
      ),
    );
  }
}
