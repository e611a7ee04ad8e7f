import { setMaxListeners } from 'node:events';
import { systemClock } from '../clock.js';
import { configDir, configDirWhere } from '../config/paths.js';
import type { ProfileStore } from '../config/profiles.js';
import type { Credentials } from '../config/resolve.js';
import type { Context, ContextDeps, GivenCredentials, GlobalOptions } from '../context.js';
import { streamTarget } from '../terminal/io.js';
import { makeRedactor } from '../redact/redact.js';
import { escapeControl } from '../lib/terminal-text.js';
import { HttpStack } from './context-http.js';
import { DEFAULT_GLOBALS } from './global-options.js';

/** The Context of one run of the program (src/context.ts says what each member is). */
/** The Context as the program holds it: it sets the global options once they are parsed (frozen: commands only read them). */
export interface ProgramContext extends Context {
  setGlobals(globals: GlobalOptions): void;
}

export function createContext(deps: ContextDeps): ProgramContext {
  const clock = deps.clock ?? systemClock;
  const signal = deps.signal ?? new AbortController().signal;
  // Every request waiting on the rate limiter listens to this one signal.
  setMaxListeners(0, signal);
  const disposers: Array<() => Promise<void> | void> = [];
  const onDispose = (fn: () => Promise<void> | void) => void disposers.push(fn);
  const redaction = new Redaction(deps.env.CNV_API_KEY);
  const redact = (text: string) => redaction.redact(text);
  const account = new Account(
    deps,
    () => ctx.globals,
    redaction,
    (message) => ctx.warn(message),
  );
  const stack = new HttpStack({
    deps,
    clock,
    globals: () => ctx.globals,
    credentials: () => account.credentials(),
    redact,
    warn: (m) => ctx.warn(m),
    onDispose,
  });
  let globals: Readonly<GlobalOptions> = Object.freeze({ ...DEFAULT_GLOBALS });
  const ctx: ProgramContext = {
    io: deps.io,
    env: deps.env,
    clock,
    signal,
    tuning: deps.tuning,
    argv: deps.argv,
    get globals() {
      return globals;
    },
    setGlobals(parsed) {
      globals = Object.freeze({ ...parsed });
    },
    config: () => account.config(),
    credentials: () => account.credentials(),
    useCredentials: (given) => account.use(given),
    http: (choice) => stack.http(choice),
    prepareHttp() {
      stack.prepare();
      account.prepare();
    },
    warn: (message) => say(ctx, `warning: ${message}`),
    info: (message) => say(ctx, message),
    tell: (line) => say(ctx, line, true),
    redact,
    showProgress: () => progressAllowed(deps, ctx.globals),
    onDispose,
    async dispose() {
      for (const fn of disposers.splice(0).reverse()) await fn();
    },
  };
  return ctx;
}

/** A line on stderr unless --quiet (or `evenQuiet`), redacted, its control characters escaped. */
function say(ctx: Context, line: string, evenQuiet = false): void {
  if (evenQuiet || !ctx.globals.quiet) ctx.io.stderr.write(escapeControl(ctx.redact(line), '\n\t') + '\n');
}

function progressAllowed(deps: ContextDeps, globals: GlobalOptions): boolean {
  const ci = deps.env.CI !== undefined && deps.env.CI !== '' && deps.env.CI !== 'false' && deps.env.CI !== '0';
  // A terminal that reports no width (script, docker -t without a size) makes a spinner redraw endlessly.
  const columns = (deps.io.stderr as { columns?: number }).columns;
  const sized = columns === undefined || columns > 0;
  // The debug log's many lines on stderr and a spinner redrawing over them would garble both.
  if (!deps.io.stderrIsTTY || !sized || globals.quiet || !globals.progress || globals.debug || ci) return false;
  // stdout into another program (`| jq`) prints on the same terminal: frames would land among its lines.
  return streamTarget(deps.io.stdout) !== 'pipe';
}

/** Masks the API keys the run knows of: CNV_API_KEY from the start, the key in force once resolved. */
class Redaction {
  private redactor: (text: string) => string;

  constructor(envKey: string | undefined) {
    this.redactor = makeRedactor([envKey]);
  }

  redact(text: string): string {
    return this.redactor(text);
  }

  learn(keys: Array<string | undefined>): void {
    this.redactor = makeRedactor(keys);
  }
}

/** The profile store and the credentials in force, each loaded once, on first use. */
class Account {
  private store: Promise<ProfileStore> | undefined;
  private creds: Promise<Credentials> | undefined;
  private given: GivenCredentials | undefined;

  constructor(
    private readonly deps: ContextDeps,
    private readonly globals: () => GlobalOptions,
    private readonly redaction: Redaction,
    private readonly warn: (message: string) => void,
  ) {}

  config(): Promise<ProfileStore> {
    const { env } = this.deps;
    return (this.store ??= import('../config/profiles.js').then(({ ProfileStore }) =>
      ProfileStore.open(configDir(env), configDirWhere(env)),
    ));
  }

  credentials(): Promise<Credentials> {
    return (this.creds ??= this.resolve());
  }

  /** See Context.useCredentials. */
  use(given: GivenCredentials): void {
    if (this.creds) throw new Error('useCredentials() after the credentials were resolved');
    this.given = given;
  }

  /** What credentials() loads, without resolving them (their errors and warnings come with the first request). */
  prepare(): void {
    this.config().catch(() => {});
    import('../config/resolve.js').catch(() => {});
  }

  private async resolve(): Promise<Credentials> {
    const { resolveCredentials } = await import('../config/resolve.js');
    const globals = this.globals();
    const resolved = resolveCredentials(
      {
        apiKeyFlag: this.given?.apiKey ?? globals.apiKey,
        baseUrlFlag: this.given?.baseUrl ?? globals.baseUrl,
        flagSources: this.given?.sources,
        // Given a key and a base URL, no profile is read: `config set-key --profile new` checks
        // the key of a profile not saved yet.
        profileFlag: this.given ? undefined : globals.profile,
        env: this.given ? { ...this.deps.env, CNV_PROFILE: undefined } : this.deps.env,
      },
      await this.config(),
    );
    this.redaction.learn([resolved.apiKey, this.deps.env.CNV_API_KEY, globals.apiKey, this.given?.apiKey]);
    // The tap's --config names its sources, so the warnings name its settings; a key `config
    // set-key` checks before saving is the command's to warn about.
    if (!this.given || this.given.sources) for (const w of resolved.warnings) this.warn(w);
    return resolved;
  }
}
