import type { Server } from 'node:http';
import { escapeControl } from '../lib/terminal-text.js';
import { isLoopbackHost } from './admin-guard.js';
import { attachBulk } from './bulk.js';
import { FaultController } from './faults.js';
import { BUSINESSES, DEMO_KEYS, type DemoKeys } from './keys.js';
import { BusinessRateLimiter } from './business-rate-limiter.js';
import { buildAdminRouter, buildApiRouter } from './routes/index.js';
import { seedStore, type SeedSpec } from './seed/index.js';
import { closeServer, createEmulatorServer, listen } from './server.js';
import { Stats } from './stats.js';
import { EmulatorStore, type TimestampPrecision } from './store.js';

export { DEMO_KEYS } from './keys.js';
export { describeEmulator } from './banner.js';
export { HEALTH_PATH } from './routes/health.js';
export { FIXTURE_CONTACTS, FIXTURE_DELETED_CONTACT_ID, FIXTURE_EVENTS } from './seed/fixtures.js';

/** Options of startEmulator. */
export interface EmulatorOptions {
  /** TCP port; 0 (default) picks a random free port. */
  port?: number;
  /** Interface to bind; default '127.0.0.1'. */
  host?: string;
  /** 'demo' (default), 'none' (empty store) or a number: demo data generated from that PRNG seed. */
  seed?: SeedSpec;
  /** 0..1 share of /v2 requests answered 500 internal_error. */
  failRate?: number;
  /** Delay in ms added before each /v2 answer. */
  latencyMs?: number;
  /** 0..1 share of /v2 requests whose socket is destroyed without an answer. */
  dropRate?: number;
  /** Requests per second per business (token bucket); default 200; 0 disables. */
  rateLimit?: number;
  /** Bulk contacts of business acme (benchmarks): computed on demand, real contacts, stored only once written. */
  seedContacts?: number;
  /** Bulk custom events, and as many email events (over the nine types), for export benchmarks; like seedContacts. */
  seedEvents?: number;
  /** `s`: contacts' createdAt and updatedAt shown in whole seconds, as some servers keep them (default `ms`). */
  timestampPrecision?: TimestampPrecision;
  /** No logging at all (by default only unexpected handler errors are logged to stderr). */
  quiet?: boolean;
  /** Log one line per request: method, path and query, status, milliseconds (ignored when quiet). */
  verbose?: boolean;
  /** Where log lines go (default: process.stderr); each line comes with control characters escaped. */
  log?: (line: string) => void;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. http://127.0.0.1:54321 (endpoint paths start with /v2). */
  url: string;
  port: number;
  host: string;
  keys: DemoKeys;
  store: EmulatorStore;
  /** Stops the server and closes every connection. */
  close(): Promise<void>;
}

/** Starts an in-memory emulator of the API v2 on loopback. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ?? 'demo';
  checkOptions(opts);
  const dataSpec = `seed=${seed}|contacts=${opts.seedContacts ?? 0}|events=${opts.seedEvents ?? 0}`;
  const store = new EmulatorStore(BUSINESSES, (s) => seedStore(s, seed), dataSpec);
  store.timestampPrecision = opts.timestampPrecision ?? 'ms';
  attachBulk(store.business('acme'), { contacts: opts.seedContacts ?? 0, events: opts.seedEvents ?? 0 });
  const sink = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // What a client sent (a path, an error's message) cannot act on the terminal.
  const log = opts.quiet ? () => {} : (line: string) => sink(escapeControl(line, '\n\t'));
  const server: Server = createEmulatorServer({
    router: buildApiRouter(),
    adminRouter: buildAdminRouter(),
    store,
    faults: new FaultController({ failRate: opts.failRate, latencyMs: opts.latencyMs, dropRate: opts.dropRate }),
    stats: new Stats(),
    rateLimiter: new BusinessRateLimiter(opts.rateLimit ?? 200),
    log,
    verbose: !opts.quiet && !!opts.verbose,
    listensBeyondLoopback: !isLoopbackHost(host),
  });
  const address = await listen(server, opts.port ?? 0, host);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    host,
    keys: { ...DEMO_KEYS },
    store,
    close: () => (closing ??= closeServer(server)),
  };
}

function checkOptions(o: EmulatorOptions): void {
  const share = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0 && v <= 1))
      throw new RangeError(`${name} must be between 0 and 1`);
  };
  share('failRate', o.failRate);
  share('dropRate', o.dropRate);
  const nonNegative = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      throw new RangeError(`${name} must be a non-negative number`);
  };
  nonNegative('latencyMs', o.latencyMs);
  nonNegative('rateLimit', o.rateLimit);
  for (const [name, v] of [
    ['seedContacts', o.seedContacts],
    ['seedEvents', o.seedEvents],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 100_000_000))
      throw new RangeError(`${name} must be an integer from 0 to 100000000`);
  }
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) {
    throw new RangeError('port must be an integer from 0 to 65535');
  }
  if (o.timestampPrecision !== undefined && o.timestampPrecision !== 'ms' && o.timestampPrecision !== 's')
    throw new RangeError("timestampPrecision must be 'ms' or 's'");
  const s = o.seed;
  if (s !== undefined && s !== 'demo' && s !== 'none' && !(typeof s === 'number' && Number.isInteger(s))) {
    throw new RangeError("seed must be 'demo', 'none' or an integer");
  }
}
