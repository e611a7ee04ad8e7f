import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import type { BatchDefaults, BatchRunOptions, RunMode } from '../batch/batch-run-options.js';
import { UsageError } from '../errors.js';
import { INPUT_FORMATS } from '../input/input-rows.js';
import { summaryJsonTarget } from '../output/summary-json.js';
import { INPUT_ENCODINGS } from '../input/text-decode.js';
import { integer } from '../lib/option-values.js';
import { flag, listFlag, numberFlag, switchFlag, textFlag, withBrief } from './flags.js';
import { refuseJsonWhenStdoutIsData } from './stdout-data.js';

function delimiter(text: string): string {
  if (text === 'tab' || text === '\\t') return '\t';
  if ([...text].length !== 1) throw new InvalidArgumentError(`expected one character or "tab", got "${text}"`);
  if (text === '"' || text === '\n' || text === '\r')
    throw new InvalidArgumentError('the delimiter cannot be a quote or a line break');
  return text;
}

/** How an input file is read. */
const READ_FLAGS = {
  inputFormat: withBrief(
    flag(
      '--input-format <format>',
      'input format when the extension does not say (default: by extension, else sniffed)',
      z.enum(['csv', 'ndjson', 'json']).optional(),
      { choices: INPUT_FORMATS },
    ),
    'csv, ndjson or json (default: by extension)',
  ),
  delimiter: withBrief(
    textFlag(
      '--delimiter <char>',
      'CSV field delimiter: one character, or "tab" (default "," or a tab for .tsv)',
      delimiter,
    ),
    'CSV delimiter: one character, or "tab"',
  ),
  encoding: withBrief(
    flag(
      '--encoding <name>',
      'text encoding of an input file without a byte order mark (default utf-8; UTF-16 with a BOM is read as such)',
      z.string().optional(),
      { choices: INPUT_ENCODINGS },
    ),
    'text encoding of a file without a BOM',
  ),
};

/** The report of a run, and a run resumed from one. */
const REPORT_FLAGS = {
  report: withBrief(
    textFlag(
      '--report <file>',
      "write every row's result as CSV (line, identifier, status, ..., error, message, row, hash) " +
        'after a first line naming the run; - for stdout',
    ),
    "write every row's result as CSV (- for stdout)",
  ),
  resumeFromReport: withBrief(
    textFlag(
      '--resume-from-report <file>',
      'send only the rows that have no success in this earlier report of the same command, ' +
        'target and input (matched by row and content)',
    ),
    'send only the rows this report has not done',
  ),
  force: withBrief(
    switchFlag(
      '--force',
      'overwrite the --report of an unfinished run (one with skipped rows) and send every row again, ' +
        'instead of refusing it (exit 2)',
    ),
    "overwrite an unfinished run's --report",
  ),
};

/** Which rows and columns are read, and where each column goes. */
const ROW_FLAGS = {
  maxRows: withBrief(
    numberFlag(
      '--max-rows <n>',
      'read only the first N rows of the file (with --dry-run: look at what the first few would send)',
      integer(1),
    ),
    'read only the first N rows of the file',
  ),
  map: withBrief(
    listFlag(
      '--map <column=target>',
      'send a column as a target: a body key, fields.KEY, a field key or label, body.NAME (as it is), ' +
        "or - (left out); repeatable, e.g. --map 'First Name=firstName'",
    ),
    "send a column as a target: --map 'A=email'",
  ),
  mapFile: withBrief(
    textFlag(
      '--map-file <file>',
      'column=target lines, as --map (# comments); see docs/batches.md for HubSpot, Mailchimp and Klaviyo recipes',
    ),
    'column=target lines, as --map (# comments)',
  ),
  ignoreColumn: withBrief(
    listFlag(
      '--ignore-column <name>',
      "leave this column out (repeatable; '' names an unnamed column, such as a pandas or R row index)",
    ),
    'leave this column out (repeatable)',
  ),
};

/**
 * The input, report and concurrency flags shared by every batch or file mode (the column flags of
 * its mode follow: see below).
 */
export function batchFlags(defaults: BatchDefaults) {
  return {
    ...READ_FLAGS,
    ...REPORT_FLAGS,
    concurrency: numberFlag(
      '--concurrency <n>',
      `requests in flight at once (default ${defaults.concurrency})`,
      integer(1, 64),
    ),
    ...ROW_FLAGS,
  };
}

/** Columns that name nothing the endpoint takes: left out (every mode but the batch adds', which take identifiers only). */
export const IGNORE_UNKNOWN_COLUMNS_FLAG = {
  ignoreUnknownColumns: withBrief(
    switchFlag(
      '--ignore-unknown-columns',
      'leave out every column that names nothing the endpoint takes (listed in the column table) instead of refusing the file',
    ),
    'leave out the columns that name nothing',
  ),
};

/** A column sent as it is (the modes whose rows are request bodies: upserts, events). */
export const PASS_COLUMN_FLAG = {
  passColumn: withBrief(
    listFlag(
      '--pass-column <name>',
      'send this column as a top-level body member under its own name, ' +
        'unchecked (the members the spec names but does not spell); repeatable',
    ),
    'send this column as a body member, unchecked',
  ),
};

/**
 * The file's number convention, for NUMBER cells (the modes whose cells are typed by field
 * definitions); without either, the file's own cells tell it (src/input/number-convention.ts).
 */
export const NUMBER_CONVENTION_FLAGS = {
  decimalPoint: withBrief(
    switchFlag('--decimal-point', 'NUMBER cells have a decimal point, commas group thousands (1,234.5): 1,234 is 1234'),
    'NUMBER cells have a decimal point (1,234.5)',
  ),
  decimalComma: withBrief(
    switchFlag(
      '--decimal-comma',
      'NUMBER cells have a decimal comma, dots group thousands (1.234,5), ' +
        'as German or French spreadsheets save them: 1,234 is 1.234',
    ),
    'NUMBER cells have a decimal comma (1.234,5)',
  ),
};

/** The run's summary as JSON. */
export const SUMMARY_JSON_FLAG = {
  summaryJson: withBrief(
    textFlag(
      '--summary-json <file>',
      'write the run summary as JSON to this file at the end (also when the run fails or is interrupted); ' +
        '- for stdout when stdout carries no other data (as --json does)',
    ),
    'write the run summary as JSON (- for stdout)',
  ),
};

/** Rows per request, for an endpoint that takes more than one item. */
export function chunkSizeFlag(max: number) {
  return {
    chunkSize: numberFlag('--chunk-size <n>', `rows per request, 1 to ${max} (default ${max})`, integer(1, max)),
  };
}

/** A batch command's values of those flags (the file flag is --file or --batch). */
interface BatchOptionValues {
  inputFormat?: BatchRunOptions['inputFormat'];
  delimiter?: string;
  encoding?: string;
  report?: string;
  resumeFromReport?: string;
  force?: boolean;
  concurrency?: number;
  chunkSize?: number;
  summaryJson?: string;
  maxRows?: number;
  map?: string[];
  mapFile?: string;
  ignoreColumn?: string[];
  ignoreUnknownColumns?: boolean;
  passColumn?: string[];
  decimalComma?: boolean;
  decimalPoint?: boolean;
  file?: string;
  batch?: string;
  /** The globals the rules read (BATCH_GLOBALS): the summary document has no room on a stdout that carries the report. */
  json?: boolean;
  query?: string;
}

/** The global options a batch command's rules read: --json and -q. */
export const BATCH_GLOBALS = ['json', 'query'] as const;

/**
 * The batch flags' rules (a cross-flag check of the command's options): a resume reads the whole
 * file; the summary is never the report's stdout nor one of the run's other files.
 */
export function checkBatchOptions(opts: BatchOptionValues): void {
  // A resume carries over every row of the earlier report: one that reads only the first rows would drop the rest.
  if (opts.maxRows !== undefined && opts.resumeFromReport !== undefined) {
    throw new UsageError(
      '--max-rows: not with --resume-from-report (a resume reads the whole file, ' +
        'so that the rows done before stay in the report)',
      undefined,
      'conflicting_options',
    );
  }
  if (opts.report === '-')
    refuseJsonWhenStdoutIsData(
      opts,
      'the report (--report -)',
      '--report FILE (then --json prints the summary on stdout), or --summary-json FILE',
    );
  summaryJsonTarget(opts.summaryJson, opts.report === '-', {
    '--report': opts.report,
    '--resume-from-report': opts.resumeFromReport,
    '--file/--batch': opts.file ?? opts.batch,
  });
  if (opts.decimalComma && opts.decimalPoint)
    throw new UsageError(
      '--decimal-comma and --decimal-point: a file has one number convention; give the one it uses',
      undefined,
      'conflicting_options',
    );
}

/**
 * The run mode the global --dry-run gives a file run (a command with a mode of its own, --plan or
 * --check, chooses it instead).
 */
export const globalRunMode = (globals: { dryRun: boolean }): RunMode => (globals.dryRun ? 'dry-run' : 'send');

/** The batch options of a command, with defaults applied (checked before: checkBatchOptions). */
export function batchRunOptions(opts: BatchOptionValues, defaults: BatchDefaults, mode: RunMode): BatchRunOptions {
  return {
    inputFormat: opts.inputFormat,
    delimiter: opts.delimiter,
    encoding: opts.encoding,
    report: opts.report,
    resumeFromReport: opts.resumeFromReport,
    force: opts.force,
    concurrency: opts.concurrency ?? defaults.concurrency,
    chunkSize: opts.chunkSize ?? defaults.maxChunkSize,
    mode,
    summaryJson: opts.summaryJson,
    maxRows: opts.maxRows,
    columns: {
      map: opts.map,
      mapFile: opts.mapFile,
      ignoreColumn: opts.ignoreColumn,
      ignoreUnknownColumns: opts.ignoreUnknownColumns,
      passColumn: opts.passColumn,
    },
    numbers: opts.decimalComma ? 'comma' : opts.decimalPoint ? 'point' : undefined,
  };
}

const BATCH_ONLY = [
  'inputFormat',
  'delimiter',
  'encoding',
  'report',
  'resumeFromReport',
  'force',
  'concurrency',
  'chunkSize',
  'summaryJson',
  'maxRows',
  'map',
  'mapFile',
  'ignoreColumn',
  'ignoreUnknownColumns',
  'passColumn',
  'decimalComma',
  'decimalPoint',
] as const;

/** Batch options make no sense in single mode: say so rather than ignore them. */
export function rejectBatchOptions(opts: BatchOptionValues, fileFlag: string): void {
  const given = BATCH_ONLY.find((key) => opts[key] !== undefined);
  if (given)
    throw new UsageError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: goes only with ${fileFlag}`);
}
