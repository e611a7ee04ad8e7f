import { Option, type Command } from 'commander';
import type { GlobalOptions } from '../context.js';
import { DEFAULT_MAX_RETRY_WAIT_MS } from '../http/retry-policy.js';
import { OUTPUT_FORMATS } from '../output/format.js';
import { UsageError } from '../errors.js';
import { integer } from '../lib/option-values.js';
import { caseInsensitiveChoice } from '../cmdutil/parse.js';

/** The global options when none is given. */
export const DEFAULT_GLOBALS: GlobalOptions = {
  json: false,
  verbose: false,
  debug: false,
  quiet: false,
  progress: true,
  color: true,
  pager: true,
  timeout: 30_000,
  maxRetries: 3,
  maxRetryWaitMs: DEFAULT_MAX_RETRY_WAIT_MS,
  dryRun: false,
};

/** What -o takes: the output formats, and markdown for the one leaf that writes it (the tap's --about). */
const PARSED_FORMATS = [...OUTPUT_FORMATS, 'markdown'] as const;

/** Upper bound of --timeout: the longest a Node.js timer waits (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Upper bound of --max-retry-wait: a day. */
const MAX_RETRY_WAIT_LIMIT_S = 86_400;

/** Options every command accepts; they may stand before or after the command name. */
export function addGlobalOptions(program: Command): void {
  program
    .option('--profile <name>', 'profile to use (default: the one `cnv config use` chose, or "default")')
    .option('--api-key <key>', 'API key (prefer CNV_API_KEY or `cnv config set-key`: flags show up in process lists)')
    .option('--base-url <url>', 'API base URL (also CNV_BASE_URL)')
    .option('--json', "print JSON (the same document as when stdout is not a terminal; see each command's JSON OUTPUT)")
    .addOption(
      new Option('-o, --format <format>', 'output format (any case; markdown: `cnv tap --about` only)')
        .choices([...PARSED_FORMATS])
        .argParser(caseInsensitiveChoice(PARSED_FORMATS)),
    )
    .option(
      '-q, --query <expr>',
      "print what this JMESPath expression selects from the JSON output (e.g. -q '[].name'; a string prints bare)",
    )
    .option('-v, --verbose', 'log each request and response on stderr (API key redacted)')
    .option(
      '--quiet',
      "no progress, warnings or summaries on stderr (an export still says how the account's fields changed)",
    )
    .option('--no-progress', 'no progress display')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-pager', 'print a long table directly instead of through the pager (CNV_PAGER, PAGER, or less -FRX)')
    .option('--dry-run', 'print the write request(s) a command would send (key redacted) and send nothing')
    .option(
      '--debug',
      'log each request and response in full on stderr: URL, headers, bodies (first 4 KiB), timing, attempts; key redacted (also CNV_DEBUG=api)',
    )
    .option(
      '--timeout <ms>',
      `time limit of each HTTP attempt (default ${DEFAULT_GLOBALS.timeout})`,
      integer(1, MAX_TIMER_MS),
    )
    .option(
      '--max-retries <n>',
      `retries after a transient failure (default ${DEFAULT_GLOBALS.maxRetries})`,
      integer(0, 20),
    )
    .option(
      '--max-retry-wait <s>',
      `longest wait, in seconds, a server's Retry-After may ask for; past it cnv gives up at once (exit 7) saying when to try again (default ${DEFAULT_GLOBALS.maxRetryWaitMs / 1000}; also CNV_MAX_RETRY_WAIT)`,
      integer(0, MAX_RETRY_WAIT_LIMIT_S),
    );
}

export function toGlobals(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  const json = raw.json === true;
  const format = raw.format as GlobalOptions['format'];
  const query = raw.query as string | undefined;
  if (query !== undefined && query.trim() === '') throw new UsageError('-q/--query: the expression is empty');
  return {
    profile: raw.profile as string | undefined,
    apiKey: raw.apiKey as string | undefined,
    baseUrl: raw.baseUrl as string | undefined,
    json,
    format,
    query,
    // --debug is --verbose and more: a bug's stack trace, the emulator's request log.
    verbose: raw.verbose === true || raw.debug === true || debugEnv(env) !== undefined,
    debug: raw.debug === true || debugEnv(env) === 'api',
    quiet: raw.quiet === true,
    progress: raw.progress !== false,
    color: raw.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== ''),
    pager: raw.pager !== false,
    timeout: (raw.timeout as number | undefined) ?? DEFAULT_GLOBALS.timeout,
    maxRetries: (raw.maxRetries as number | undefined) ?? DEFAULT_GLOBALS.maxRetries,
    maxRetryWaitMs:
      ((raw.maxRetryWait as number | undefined) ??
        envSeconds(env, 'CNV_MAX_RETRY_WAIT') ??
        DEFAULT_GLOBALS.maxRetryWaitMs / 1000) * 1000,
    dryRun: raw.dryRun === true,
  };
}

/** CNV_DEBUG, as gh reads GH_DEBUG: `api` for the full HTTP log, another true value for --verbose. */
function debugEnv(env: NodeJS.ProcessEnv): 'api' | 'verbose' | undefined {
  const raw = (env.CNV_DEBUG ?? '').trim().toLowerCase();
  if (raw === 'api') return 'api';
  return raw === '' || raw === '0' || raw === 'false' || raw === 'no' || raw === 'off' ? undefined : 'verbose';
}

/**
 * For a command that prints a JSON document: one output format. A second one is refused rather
 * than silently losing to the first. (An export's -o is its file format and --json its summary's,
 * so this is not checked there.)
 */
export function checkOutputFlags(globals: GlobalOptions, markdown = false): void {
  const { json, format, query } = globals;
  if (format === 'markdown' && !markdown)
    throw new UsageError('-o markdown: only `cnv tap --about` writes markdown; give table, json, ndjson or csv');
  if (json && format !== undefined && format !== 'json')
    throw new UsageError(`--json and -o ${format} ask for two output formats: give one`);
  if (query !== undefined && (format === 'csv' || format === 'table')) {
    throw new UsageError(
      `-q/--query and -o ${format}: a query selects from the JSON output; drop -o ${format} (or use -o json|ndjson)`,
    );
  }
}

function envSeconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || n > MAX_RETRY_WAIT_LIMIT_S) {
    throw new UsageError(`${name} must be a whole number of seconds from 0 to ${MAX_RETRY_WAIT_LIMIT_S}, got "${raw}"`);
  }
  return n;
}
