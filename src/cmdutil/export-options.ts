import { extname } from 'node:path';
import { z } from 'zod';
import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import type { EmailEventType } from '../endpoints/exports.js';
import type { GlobalOptions } from '../context.js';
import { isIsoDate } from '../dates.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { streamTarget, type IO } from '../terminal/io.js';
import { crashHookFromEnv } from '../exporter/crash-points.js';
import type { ExportRunOptions } from '../exporter/export-run-options.js';
import { gzipName } from '../exporter/gzip-pages.js';
import { summaryJsonTarget } from '../output/summary-json.js';
import { integer } from '../lib/option-values.js';
import { flag, numberFlag, switchFlag, textFlag, type OptionValues, withBrief } from './flags.js';
import { refuseJsonWhenStdoutIsData } from './stdout-data.js';
import { checkStateKey } from '../exporter/state-key.js';
import type { FileFormat } from '../exporter/export-state.js';
import type { ExportKind } from '../endpoints/exports.js';

/** One help line on the file format, which is the global -o/--format. */
export const FORMAT_HELP =
  'Format: -o csv|ndjson; by default CSV when --out ends in .csv (or .csv.gz), ' +
  'else NDJSON (--out FILE.json is refused: not one JSON array). ' +
  '--out FILE.gz (or --compress gzip) writes gzip: one gzip member per page.';

type Compression = 'gzip' | 'none';

const compressChoice = Object.assign(
  (value: string): Compression => {
    const v = value.trim().toLowerCase();
    if (v !== 'gzip' && v !== 'none')
      throw new UsageError(`--compress: expected gzip or none, got ${JSON.stringify(value)}`);
    return v;
  },
  { choices: ['gzip', 'none'] },
); // read by shell completion and the generated reference

/** Where an export writes (before --limit in the help). */
const OUTPUT_FLAGS = {
  out: withBrief(
    textFlag(
      '--out <file>',
      'write to this file (default: stdout); with a state, each run adds the new rows under the exactly-once protocol',
    ),
    'write to this file (default: stdout)',
  ),
  compress: withBrief(
    flag(
      '--compress <type>',
      'gzip: write gzip, one complete member per committed page (default: gzip when --out ends in .gz, ' +
        'else none); for stdout pipelines',
      z.enum(['gzip', 'none']).optional(),
      { parse: compressChoice },
    ),
    'gzip (default: gzip when --out ends in .gz)',
  ),
};

/** Which rows a run exports, and its state. */
const RUN_FLAGS = {
  full: withBrief(
    switchFlag(
      '--full',
      'ignore the saved state and export everything again (a file given with --out is emptied first)',
    ),
    'ignore the saved state and export everything',
  ),
  /** false with --no-state. */
  state: withBrief(
    flag(
      '--no-state',
      'neither read nor write any state: a one-off export; --out FILE is written beside FILE ' +
        'and renamed over it only once the export succeeded (a failure or a kill leaves FILE as it was)',
      z.boolean(),
    ),
    'no state: a one-off export of everything',
  ),
  stateKey: withBrief(
    textFlag(
      '--state-key <name>',
      'name of the saved state (default: the account, sk_live_<key id>@host, ' +
        'then /kind[/type] and :FILE for --out FILE); rows to stdout keep a position only when this names one',
    ),
    'name of the saved state',
  ),
  maxPages: withBrief(
    numberFlag('--max-pages <n>', 'stop after this many pages (a state keeps the place)', integer(1)),
    'stop after this many pages',
  ),
  maxRows: withBrief(
    numberFlag('--max-rows <n>', 'stop after this many rows (a state keeps the place)', integer(1)),
    'stop after this many rows',
  ),
  deferCommit: withBrief(
    switchFlag(
      '--defer-commit',
      'stdout only: save the new position as pending; `cnv export state commit KEY --run ID` makes it current',
    ),
    'stdout only: leave the new position pending',
  ),
  run: withBrief(
    textFlag(
      '--run <id>',
      'name this run (letters, digits, . _ : -; default: a random id, shown in the summary); ' +
        '`export state commit KEY --run ID` commits a --defer-commit run by it',
    ),
    'name this run (default: a random id)',
  ),
};

/** How a CSV file is written, and the run's summary. */
const FILE_FLAGS = {
  columns: withBrief(
    textFlag(
      '--columns <list>',
      'CSV: comma-separated columns to write, in order (default: all; members with no column still go to _extra)',
    ),
    'CSV: the columns to write, in order',
  ),
  bom: withBrief(
    switchFlag('--bom', 'CSV: start a new file (or the stream) with a UTF-8 byte order mark, for spreadsheet programs'),
    'CSV: start with a UTF-8 byte order mark',
  ),
  // A line break would end the CSV record.
  nullAs: withBrief(
    flag(
      '--null-as <text>',
      'CSV: write null values as this text (e.g. \\N, as PostgreSQL COPY and MySQL do), ' +
        'so null and "" differ (default: an empty cell for both)',
      z
        .string()
        .refine((text) => !/[\r\n]/.test(text), 'must not hold a line break')
        .optional(),
    ),
    'CSV: write null as this text (e.g. \\N)',
  ),
  excelSafe: withBrief(
    switchFlag(
      '--excel-safe',
      "CSV: prefix ' to values starting with = + - @ tab or CR, " +
        'so spreadsheets do not run them as formulas (values are then not exact)',
    ),
    'CSV: keep spreadsheets from running formulas',
  ),
  summaryJson: withBrief(
    textFlag(
      '--summary-json <file>',
      'write the run summary as JSON to this file at the end (also when the run fails or is interrupted); ' +
        '- for stdout when the rows go to --out (as --json does)',
    ),
    'write the run summary as JSON (- for stdout)',
  ),
};

/** The flags every export command takes. The file format is the global -o/--format (csv or ndjson). */
export function exportFlags(kind: ExportKind) {
  const { max, default: def } = EXPORT_PAGE_LIMITS[kind];
  return {
    ...OUTPUT_FLAGS,
    limit: withBrief(
      numberFlag(
        '--limit <n>',
        `rows per page, 1 to ${max} (other values are clamped, as the API does; default ${def})`,
        integer(Number.MIN_SAFE_INTEGER),
      ),
      `rows per page, 1 to ${max} (default ${def})`,
    ),
    ...RUN_FLAGS,
    ...FILE_FLAGS,
  };
}

/**
 * The global options an export's rules read: --dry-run (no state, no file), -o/--format (the
 * file format), --json and -q (the summary document, refused when the rows go to stdout).
 */
export const EXPORT_GLOBALS = ['dryRun', 'format', 'json', 'query'] as const;

/** What an export command's options hold: its export flags, and the globals its rules read. */
export type ExportOptionValues = OptionValues<ReturnType<typeof exportFlags>, (typeof EXPORT_GLOBALS)[number]>;

/** What the flags mean once the global --dry-run and -o/--format are taken into account. */
function derived(opts: ExportOptionValues & { outDir?: string }) {
  // --dry-run prints the first request a stateless run would send: no state, no file touched.
  const { dryRun } = opts;
  const out = opts.out !== undefined && opts.out !== '-' && !dryRun ? opts.out : undefined;
  // Rows to stdout are a one-off (a peek, `| head`) unless --state-key names the position to keep.
  const oneOff = out === undefined && opts.outDir === undefined && opts.stateKey === undefined;
  return {
    out,
    oneOff,
    noState: opts.state === false || dryRun || oneOff,
    deferCommit: opts.deferCommit === true && !dryRun,
  };
}

/**
 * The export flags' rules, across flags and with the globals (usage errors name the flag): a
 * cross-flag check of the command's options.
 */
export function checkExportOptions(opts: ExportOptionValues & { outDir?: string }): void {
  const { out, oneOff, noState, deferCommit } = derived(opts);
  if (out !== undefined && extname(gzipName(out).inner).toLowerCase() === '.json')
    // A name that says one JSON document would hold NDJSON lines, which a JSON reader refuses.
    throw new UsageError(
      `--out ${out}: an export writes NDJSON (one JSON object a line) or CSV, not one JSON array`,
      `name it .ndjson (or .csv); for one array: jq -s . FILE.ndjson`,
    );
  const format = fileFormat(opts.format, opts.out === undefined ? undefined : gzipName(opts.out).inner);
  compression(opts.compress, out);
  if (noState && !opts.dryRun && opts.stateKey !== undefined)
    throw new UsageError('--state-key and --no-state do not go together');
  if (oneOff && !opts.dryRun && (deferCommit || opts.run !== undefined))
    throw new UsageError(
      `${deferCommit ? '--defer-commit' : '--run'}: rows to stdout keep no position unless --state-key names one`,
      'name the pipeline\'s state: --state-key NAME (docs/exports.md, "Pipelines")',
    );
  if (noState && deferCommit)
    throw new UsageError('--defer-commit needs a state to hold the pending position; drop --no-state');
  if (deferCommit && out !== undefined)
    throw new UsageError('--defer-commit is for stdout pipelines; a file (--out) is committed page by page already');
  const csvOnly =
    opts.columns !== undefined
      ? '--columns'
      : opts.bom
        ? '--bom'
        : opts.nullAs !== undefined
          ? '--null-as'
          : opts.excelSafe
            ? '--excel-safe'
            : undefined;
  if (format !== 'csv' && csvOnly)
    throw new UsageError(`${csvOnly} applies to CSV output only (-o csv or --out FILE.csv)`);
  if (opts.run !== undefined && noState) throw new UsageError('--run names a run in a state; drop --no-state');
  if (columnList(opts.columns)?.length === 0) throw new UsageError('--columns: name at least one column');
  if (opts.stateKey !== undefined) checkStateKey(opts.stateKey);
  if (opts.run !== undefined) checkRunId(opts.run, '--run');
  // A dry run prints its request on stdout, like rows to stdout: no room for the summary there
  // (but -q and --json apply to that request).
  const stdoutCarriesData = out === undefined && opts.outDir === undefined;
  if (stdoutCarriesData && !opts.dryRun)
    refuseJsonWhenStdoutIsData(
      opts,
      'the exported rows',
      '--summary-json FILE, or --out FILE (then --json prints the summary on stdout)',
    );
  summaryJsonTarget(opts.summaryJson, stdoutCarriesData, { '--out': opts.out });
}

/** The run options of checked export flags. `env`: the test-only crash points (CNV_TEST_CRASH_AT). */
export function exportRunOptions(
  opts: ExportOptionValues & { outDir?: string },
  kind: ExportKind,
  env: NodeJS.ProcessEnv,
  extra: {
    emailType?: EmailEventType;
    since?: string;
    until?: string;
    windowAsTyped?: ExportRunOptions['windowAsTyped'];
  } = {},
): ExportRunOptions {
  const { out, noState, deferCommit } = derived(opts);
  const { max, default: def } = EXPORT_PAGE_LIMITS[kind];
  return {
    kind,
    ...extra,
    out,
    format: fileFormat(opts.format, opts.out === undefined ? undefined : gzipName(opts.out).inner),
    compress: compression(opts.compress, out),
    limit: Math.max(1, Math.min(max, opts.limit ?? def)),
    full: opts.full === true,
    noState,
    stateKey: opts.stateKey === undefined ? undefined : checkStateKey(opts.stateKey),
    maxPages: opts.maxPages,
    maxRows: opts.maxRows,
    deferCommit,
    columns: columnList(opts.columns),
    bom: opts.bom === true,
    nullAs: opts.nullAs,
    excelSafe: opts.excelSafe === true,
    runId: opts.run,
    summaryJson: opts.summaryJson,
    crash: crashHookFromEnv(env),
  };
}

const columnList = (text: string | undefined) =>
  text
    ?.split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');

/** gzip for --out FILE.gz or --compress gzip; a file's name must say what it holds. */
function compression(asked: Compression | undefined, out: string | undefined): 'gzip' | undefined {
  const named = out !== undefined && gzipName(out).gzip;
  if (asked === 'gzip' && out !== undefined && !named)
    throw new UsageError(`--compress gzip: name the file ${out}.gz, so that readers know it is gzip`);
  if (asked === 'none' && named)
    throw new UsageError(`--compress none: --out ${out} ends in .gz; drop .gz for a plain file`);
  return asked === 'gzip' || named ? 'gzip' : undefined;
}

/** Checks a run id (--run): what a shell passes around unquoted. */
export function checkRunId(id: string, flag: string): string {
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(id))
    throw new UsageError(`${flag}: expected 1 to 100 letters, digits, '.', '_', ':' or '-', got ${JSON.stringify(id)}`);
  return id;
}

/** -o/--format csv|ndjson; else from the file's extension (.csv), else NDJSON. */
function fileFormat(asked: GlobalOptions['format'], out: string | undefined): FileFormat {
  if (asked === 'csv' || asked === 'ndjson') return asked;
  if (asked !== undefined) throw new UsageError(`--format ${asked}: an export writes csv or ndjson`);
  return out !== undefined && extname(out).toLowerCase() === '.csv' ? 'csv' : 'ndjson';
}

const DURATION = /^(\d{1,6})\s*(s|m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * --since/--until: an ISO 8601 date-time with a zone, a date (midnight UTC), normalised to UTC;
 * or a duration before now (`24h`, `7d`, `30m`, `2w`), kept as typed until `windowTime` makes it
 * a time with the run's clock.
 */
export function instant(flag: string) {
  return (text: string): string => {
    const t = text.trim();
    const duration = DURATION.exec(t);
    if (duration) return `${Number(duration[1])}${duration[2].toLowerCase()}`;
    const ok =
      /^\d{4}-\d{2}-\d{2}$/.test(t) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(t);
    const ms = Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t);
    // Date.parse rolls 2025-02-30 over to March; refuse dates that are not on the calendar.
    if (!ok || !Number.isFinite(ms) || !isIsoDate(t.slice(0, 10))) {
      const word = /^(yesterday|today|now|last\s*week)$/i.test(t) ? ` (a word is not read: ${wordFor(t)} says it)` : '';
      const expected =
        'a duration before now (24h, 7d, 30m, 2w), an ISO 8601 date-time with a zone (2025-01-31T00:00:00Z) or a date';
      throw new UsageError(`${flag}: expected ${expected}, got "${text}"${word}`);
    }
    return new Date(ms).toISOString();
  };
}

/** What to write for a word such as `today` or `last week`. */
function wordFor(word: string): string {
  if (/today|now/i.test(word)) return 'a date, or 0h';
  return /week/i.test(word) ? '7d' : '24h';
}

/** A duration flag's value (`7d`, `24h`, `30m`, `2w`, `90s`) in milliseconds; at least one second. */
export function durationMs(flag: string) {
  return (text: string): number => {
    const duration = DURATION.exec(text.trim());
    const ms = duration ? Number(duration[1]) * UNIT_MS[duration[2].toLowerCase()] : 0;
    if (ms <= 0) throw new UsageError(`${flag}: expected a duration such as 7d, 24h, 30m, 2w or 90s, got "${text}"`);
    return ms;
  };
}

/** Whether an `instant` value is a duration before now (`24h`) rather than a time. */
export function isDuration(value: string): boolean {
  return DURATION.test(value);
}

/** An `instant` value (of `flag`) as a UTC ISO time: a duration counts back from `nowMs`, not past 1970. */
export function windowTime(flag: string, value: string, nowMs: number): string {
  const duration = DURATION.exec(value);
  if (!duration) return value;
  const ms = nowMs - Number(duration[1]) * UNIT_MS[duration[2].toLowerCase()];
  if (ms < 0) throw new UsageError(`${flag}: ${value} before now is before 1970; give a date`);
  return new Date(ms).toISOString();
}

/**
 * Rows for a stdout the shell closed (`>&-`) would go nowhere: refused before anything is fetched
 * or committed, exit 141 (stdout closed, as for `| head`), saying so.
 */
export function refuseClosedStdout(io: Pick<IO, 'stdout'>, out: string | undefined): void {
  if (out !== undefined || streamTarget(io.stdout) !== 'closed') return;
  throw new CliError('stdout is closed (>&-): the rows would go nowhere; nothing was fetched or committed', {
    exitCode: ExitCode.outputClosed,
    code: 'stdout_closed',
    hint: 'send stdout somewhere (> FILE, | program) or write a file with --out FILE',
  });
}
