import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { DEFAULT_GLOBALS } from '../../src/cli/global-options.js';
import { ProfileStore } from '../../src/config/profiles.js';
import type { Context, GlobalOptions } from '../../src/context.js';
import { HttpClient } from '../../src/http/client.js';
import { silentLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { makeRedactor } from '../../src/redact/redact.js';
import { escapeControl } from '../../src/lib/terminal-text.js';
import { FakeApi, FAKE_ORIGIN } from './fake-api.js';
import { FakeClock } from './fake-clock.js';

/** The key the fake context sends (masked in what it prints, as a real one). */
export const FAKE_KEY = 'sk_live_fake_0123456789abcdef';

/** A fake context, and what its run wrote. */
export interface FakeRun {
  ctx: Context;
  api: FakeApi;
  clock: FakeClock;
  /** What the run wrote to stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
}

interface FakeOptions {
  /** Global options in force (--json, --quiet, --max-retries...), over the defaults. */
  globals?: Partial<GlobalOptions>;
  /** What stdin holds. */
  stdin?: string;
  /** The API (a new one by default): register stubs on `run.api`. */
  api?: FakeApi;
}

/**
 * A Context for calling a command's `run(ctx, { args, opts })` alone, as gh's TestXRun does:
 * its `http()` is the real HttpClient (retries, envelopes, typed errors as in production) over
 * a FakeApi (test/helpers/fake-api.ts: stubs; `run.api.verify()` fails on a request no stub
 * answers or a stub not used), its streams are in memory, its clock is a FakeClock (a retry's
 * wait takes no time, and is recorded in `clock.sleeps`), its environment is its own (a fresh
 * config directory, no variable of the test process), and nothing is done to the process.
 */
export function fakeContext(opts: FakeOptions = {}): FakeRun {
  const api = opts.api ?? new FakeApi();
  const clock = new FakeClock();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const configDir = mkdtempSync(join(tmpdir(), 'cnv-fake-'));
  const env: NodeJS.ProcessEnv = { CNV_CONFIG_DIR: configDir };
  const redact = makeRedactor([FAKE_KEY]);
  // Frozen, as the program's: a command reads them, and asks http() for another client.
  const globals: Readonly<GlobalOptions> = Object.freeze({ ...DEFAULT_GLOBALS, progress: false, ...opts.globals });
  const clients = new Map<string, HttpClient>();
  const disposers: Array<() => Promise<void> | void> = [];
  const say = (line: string, evenQuiet = false) => {
    if (evenQuiet || !ctx.globals.quiet) stderr.write(escapeControl(redact(line), '\n\t') + '\n');
  };
  const ctx: Context = {
    io: {
      stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
      stdout,
      stderr,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    },
    env,
    clock,
    signal: new AbortController().signal,
    globals,
    config: () => ProfileStore.open(configDir),
    useCredentials: () => {},
    credentials: async () => ({
      apiKey: FAKE_KEY,
      apiKeySource: 'CNV_API_KEY',
      baseUrl: FAKE_ORIGIN,
      baseUrlSource: 'CNV_BASE_URL',
      profile: 'default',
      warnings: [],
    }),
    // Made when first asked for, as the real one, once per choice (doctor's probes retry once at most).
    http: async (choice = {}) => {
      const key = JSON.stringify(choice);
      const made =
        clients.get(key) ??
        new HttpClient({
          baseUrl: FAKE_ORIGIN,
          apiKey: FAKE_KEY,
          dispatcher: api.dispatcher,
          limiter: new RateLimiter({ ratePerSecond: 1000, burst: 100, clock }),
          clock,
          logger: silentLogger,
          maxAttempts: (choice.maxRetries ?? ctx.globals.maxRetries) + 1,
          timeoutMs: choice.timeout ?? ctx.globals.timeout,
          maxRetryWaitMs: ctx.globals.maxRetryWaitMs,
          random: () => 0.5,
        });
      clients.set(key, made);
      return made;
    },
    prepareHttp() {},
    warn: (message) => say(`warning: ${message}`),
    info: (message) => say(message),
    tell: (line) => say(line, true),
    redact,
    showProgress: () => false,
    onDispose: (fn) => void disposers.push(fn),
    async dispose() {
      for (const fn of disposers.splice(0).reverse()) await fn();
    },
  };
  return { ctx, api, clock, stdout: () => out, stderr: () => err };
}

/**
 * A new fake context for each test of the file (`fakeContext(opts)`), its API verified and
 * closed after each: the returned run always names the current test's.
 */
export function useFakeContext(opts: FakeOptions = {}): FakeRun {
  let current: FakeRun | undefined;
  beforeEach(() => {
    current = fakeContext(opts);
  });
  afterEach(async () => {
    const { api } = current!;
    try {
      api.verify();
    } finally {
      await api.close();
    }
  });
  return {
    get ctx() {
      return current!.ctx;
    },
    get api() {
      return current!.api;
    },
    get clock() {
      return current!.clock;
    },
    stdout: () => current!.stdout(),
    stderr: () => current!.stderr(),
  };
}
