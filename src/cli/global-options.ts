import { Option, type Command } from 'commander';
import { DEFAULT_GLOBALS, type GlobalOptions } from '../context.js';
import { OUTPUT_FORMATS } from '../io/format.js';
import { integer } from './parse.js';

/** Options every command accepts; they may stand before or after the command name. */
export function addGlobalOptions(program: Command): void {
  program
    .option('--profile <name>', 'profile to use (default: the one `cnv config use` chose, or "default")')
    .option('--api-key <key>', 'API key (prefer CNV_API_KEY or `cnv config set-key`: flags show up in process lists)')
    .option('--base-url <url>', 'API base URL (also CNV_BASE_URL)')
    .option('--json', 'print JSON (records, lists, summaries and errors)')
    .addOption(new Option('-o, --format <format>', 'output format').choices([...OUTPUT_FORMATS]))
    .option('-v, --verbose', 'log each request and response on stderr (API key redacted)')
    .option('-q, --quiet', 'no progress, warnings or summaries on stderr')
    .option('--no-progress', 'no progress display')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--dry-run', 'print the write request(s) a command would send (key redacted) and send nothing')
    .option('--timeout <ms>', `time limit of each HTTP attempt (default ${DEFAULT_GLOBALS.timeout})`, integer(1))
    .option('--max-retries <n>', `retries after a transient failure (default ${DEFAULT_GLOBALS.maxRetries})`, integer(0, 20));
}

export function toGlobals(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  return {
    profile: raw.profile as string | undefined,
    apiKey: raw.apiKey as string | undefined,
    baseUrl: raw.baseUrl as string | undefined,
    json: raw.json === true,
    format: raw.format as GlobalOptions['format'],
    verbose: raw.verbose === true,
    quiet: raw.quiet === true,
    progress: raw.progress !== false,
    color: raw.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== ''),
    timeout: (raw.timeout as number | undefined) ?? DEFAULT_GLOBALS.timeout,
    maxRetries: (raw.maxRetries as number | undefined) ?? DEFAULT_GLOBALS.maxRetries,
    dryRun: raw.dryRun === true,
  };
}
