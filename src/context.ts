// The Context every command gets: types only (src/cli/create-context.ts makes it). The layers
// below the commands never see it: they take narrow inputs (ExportDeps, BatchDeps, Output,
// Notices...), which src/cmdutil/context-deps.ts builds from it.
import type { Clock } from './clock.js';
import type { ProfileStore } from './config/profiles.js';
import type { Credentials } from './config/resolve.js';
import type { HttpClient } from './http/client.js';
import type { IO } from './terminal/io.js';
import type { Dispatcher } from 'undici';

/** Options every command accepts (see src/cli/global-options.ts). */
export interface GlobalOptions {
  profile?: string;
  apiKey?: string;
  baseUrl?: string;
  json: boolean;
  /** markdown: only `cnv tap --about` writes it (a leaf's `markdown`); every other command refuses it. */
  format?: 'table' | 'json' | 'ndjson' | 'csv' | 'markdown';
  /** -q/--query: a JMESPath expression applied to the JSON output. */
  query?: string;
  verbose: boolean;
  /** Each request and response in full on stderr (--debug, CNV_DEBUG=api); implies `verbose`. */
  debug: boolean;
  quiet: boolean;
  progress: boolean;
  color: boolean;
  /** A long table on a terminal goes through the pager (not with --no-pager). */
  pager: boolean;
  timeout: number;
  maxRetries: number;
  /** Longest Retry-After wait honoured, in ms (--max-retry-wait, CNV_MAX_RETRY_WAIT). */
  maxRetryWaitMs: number;
  /** Print write requests instead of sending them. */
  dryRun: boolean;
}

/**
 * What the executable lets a run tune in its own process (src/runtime: `applyRuntime` makes it,
 * bin/cnv.js hands it to run()). Absent in-process: a test or a program calling run() keeps its
 * V8 as it was.
 */
interface RuntimeTuning {
  /** A long export (or tap sync) starts: hold V8's heap sizes. Returns the check to run after each page. */
  holdHeap(): () => void;
}

export interface ContextDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  signal?: AbortSignal;
  /** Replaces the proxy-aware keep-alive agent (tests pass undici's MockAgent). */
  dispatcher?: Dispatcher;
  random?: () => number;
  tuning?: RuntimeTuning;
  /** The arguments of this run (without node and script): what a hint to run it again repeats. */
  argv?: readonly string[];
}

/**
 * What a command may ask of its client besides the global options: another client, made once per
 * choice (sync's snapshot refresh never dry-runs: `ctx.http({ dryRun: false })`; doctor's probes
 * retry once at most: `ctx.http({ maxRetries: 1 })`).
 */
export interface ClientChoice {
  dryRun?: false;
  maxRetries?: number;
  /** Milliseconds an attempt may take (the tap's timeout_ms). */
  timeout?: number;
}

/** A key and base URL a command was given another way than the global options (the tap's --config). */
export interface GivenCredentials {
  apiKey: string;
  baseUrl: string;
  /** What they are called in messages (the tap's `api_key of --config FILE`), instead of --api-key and --base-url. */
  sources?: { apiKey: string; baseUrl: string };
}

/** What every command gets; commands never touch process, conf or undici directly, nor change the globals. */
export interface Context {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** From the launcher only (see RuntimeTuning). */
  readonly tuning?: RuntimeTuning;
  /** The arguments of this run, when run() was given them (a hint to run it again repeats them). */
  readonly argv?: readonly string[];
  /** The global options as parsed (frozen): a command that needs another client asks `http()` for it. */
  readonly globals: Readonly<GlobalOptions>;
  /** Profile store (opened on first use). */
  config(): Promise<ProfileStore>;
  /** Key, base URL and profile in force (resolved once). */
  credentials(): Promise<Credentials>;
  /**
   * Credentials a command was given another way (the tap's --config, the key `config set-key`
   * checks), taken as --api-key and --base-url would be, with no profile read and their warnings
   * left to the command (`credentials().warnings`); called before the first credentials() or
   * http(), else it throws.
   */
  useCredentials(given: GivenCredentials): void;
  /**
   * The HTTP client for the credentials in force, as the global options say, or with `choice` over
   * them (built once per choice).
   */
  http(choice?: ClientChoice): Promise<HttpClient>;
  /**
   * Starts loading the HTTP stack (modules, agent) in the background, so that a command with
   * local work to do first (a batch reading its file) sends its first request sooner. Never
   * fails: a failure surfaces at http(). Credentials are not resolved here (their errors and
   * warnings come with the first request, as without it).
   */
  prepareHttp(): void;
  /** A line on stderr, prefixed `warning:`, unless --quiet (redacted, control characters escaped). */
  warn(message: string): void;
  /** A line on stderr unless --quiet (redacted, control characters escaped). */
  info(message: string): void;
  /** A line on stderr even with --quiet (redacted, control characters escaped): what a cron log must keep (Notices.tell). */
  tell(line: string): void;
  /** Masks every API key the context knows of. */
  redact(text: string): string;
  /** Whether progress display (spinners, counters) is allowed. */
  showProgress(): boolean;
  /** Registers cleanup to run before the process exits (closing the agent, releasing locks). */
  onDispose(fn: () => Promise<void> | void): void;
  dispose(): Promise<void>;
}
