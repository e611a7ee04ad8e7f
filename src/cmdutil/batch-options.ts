import { InvalidArgumentError, Option, type Command } from 'commander';
import { z } from 'zod';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { INPUT_FORMATS } from '../io/input-rows.js';
import { INPUT_ENCODINGS } from '../io/text-decode.js';
import { summaryJsonTarget } from '../io/summary-json.js';
import { integer } from '../lib/option-values.js';
import type { BatchDefaults, BatchRunOptions } from '../batch/run-options.js';

/** The options `addBatchOptions` adds (less --chunk-size), as commander produces them. */
export const batchOptionShape = {
  inputFormat: z.enum(['csv', 'ndjson', 'json']).optional(),
  delimiter: z.string().optional(),
  encoding: z.string().optional(),
  report: z.string().optional(),
  resumeFromReport: z.string().optional(),
  concurrency: z.number().optional(),
  summaryJson: z.string().optional(),
  maxRows: z.number().optional(),
  map: z.array(z.string()).optional(),
  mapFile: z.string().optional(),
  ignoreColumn: z.array(z.string()).optional(),
};

/** The column flags `addBatchOptions` adds beyond the shared ones, by ColumnMode. */
export const ignoreUnknownShape = { ignoreUnknownColumns: z.boolean().optional() };
export const passColumnShape = { passColumn: z.array(z.string()).optional() };
export const decimalCommaShape = { decimalComma: z.boolean().optional() };

/** --chunk-size, which `addBatchOptions` adds when the endpoint takes more than one item. */
export const chunkSizeShape = { chunkSize: z.number().optional() };

/** A batch command's options, as `batchRunOptions` reads them (the file flag is --file or --batch). */
export type BatchOptionValues = z.output<z.ZodObject<typeof batchOptionShape & typeof chunkSizeShape>> &
  Partial<z.output<z.ZodObject<typeof ignoreUnknownShape & typeof passColumnShape & typeof decimalCommaShape>>> & { file?: string; batch?: string };

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the input, report and concurrency options shared by every batch or file mode. */
export function addBatchOptions(cmd: Command, defaults: BatchDefaults): Command {
  cmd
    .addOption(new Option('--input-format <format>', 'input format when the extension does not say (default: by extension, else sniffed)').choices([...INPUT_FORMATS]))
    .option('--delimiter <char>', 'CSV field delimiter: one character, or "tab" (default "," or a tab for .tsv)', delimiter)
    .addOption(new Option('--encoding <name>', 'text encoding of an input file without a byte order mark (default utf-8; UTF-16 with a BOM is read as such)').choices([...INPUT_ENCODINGS]))
    .option('--report <file>', 'write every row\'s result as CSV (line, identifier, status, ..., error, message, row, hash) after a first line naming the run; - for stdout')
    .option('--resume-from-report <file>', 'send only the rows that have no success in this earlier report of the same command, target and input (matched by row and content)')
    .option('--concurrency <n>', `requests in flight at once (default ${defaults.concurrency})`, integer(1, 64))
    .option('--max-rows <n>', 'read only the first N rows of the file (with --dry-run: look at what the first few would send)', integer(1))
    .option('--map <column=target>', "send a column as a target: a body key, fields.KEY, a field key or label, body.NAME (as it is), or - (left out); repeatable, e.g. --map 'First Name=firstName'", collect)
    .option('--map-file <file>', 'column=target lines, as --map (# comments); see docs/batches.md for HubSpot, Mailchimp and Klaviyo recipes')
    .option('--ignore-column <name>', "leave this column out (repeatable; '' names an unnamed column, such as a pandas or R row index)", collect);
  const mode = defaults.columns ?? 'body';
  if (mode !== 'identifiers') cmd.option('--ignore-unknown-columns', 'leave out every column that names nothing the endpoint takes (listed in the column table) instead of refusing the file');
  if (mode === 'body') cmd.option('--pass-column <name>', 'send this column as a top-level body member under its own name, unchecked (the members the spec names but does not spell); repeatable', collect);
  if (defaults.typedNumbers) cmd.option('--decimal-comma', 'read NUMBER cells written with a decimal comma (3,5 and 1.234,5), as German or French spreadsheets save them');
  cmd.option('--summary-json <file>', 'write the run summary as JSON to this file at the end (also when the run fails or is interrupted); - for stdout when stdout carries no other data');
  if (defaults.maxChunkSize > 1) {
    cmd.option('--chunk-size <n>', `rows per request, 1 to ${defaults.maxChunkSize} (default ${defaults.maxChunkSize})`, integer(1, defaults.maxChunkSize));
  }
  return cmd;
}

/** The batch options of a command, with defaults applied. */
export function batchRunOptions(ctx: Pick<Context, 'globals'>, opts: BatchOptionValues, defaults: BatchDefaults): BatchRunOptions {
  // A resume carries over every row of the earlier report: one that reads only the first rows would drop the rest.
  if (opts.maxRows !== undefined && opts.resumeFromReport !== undefined) {
    throw new UsageError('--max-rows: not with --resume-from-report (a resume reads the whole file, so that the rows done before stay in the report)', undefined, 'conflicting_options');
  }
  return {
    inputFormat: opts.inputFormat,
    delimiter: opts.delimiter,
    encoding: opts.encoding,
    report: opts.report,
    resumeFromReport: opts.resumeFromReport,
    concurrency: opts.concurrency ?? defaults.concurrency,
    chunkSize: opts.chunkSize ?? defaults.maxChunkSize,
    dryRun: ctx.globals.dryRun,
    printRequests: ctx.globals.dryRun,
    summaryJson: summaryJsonTarget(opts.summaryJson, opts.report === '-', { '--report': opts.report, '--resume-from-report': opts.resumeFromReport, '--file/--batch': opts.file ?? opts.batch }),
    maxRows: opts.maxRows,
    columns: { map: opts.map, mapFile: opts.mapFile, ignoreColumn: opts.ignoreColumn, ignoreUnknownColumns: opts.ignoreUnknownColumns, passColumn: opts.passColumn },
    decimalComma: opts.decimalComma === true,
  };
}

function delimiter(text: string): string {
  if (text === 'tab' || text === '\\t') return '\t';
  if ([...text].length !== 1) throw new InvalidArgumentError(`expected one character or "tab", got "${text}"`);
  if (text === '"' || text === '\n' || text === '\r') throw new InvalidArgumentError('the delimiter cannot be a quote or a line break');
  return text;
}

const BATCH_ONLY = [
  'inputFormat', 'delimiter', 'encoding', 'report', 'resumeFromReport', 'concurrency', 'chunkSize', 'summaryJson',
  'maxRows', 'map', 'mapFile', 'ignoreColumn', 'ignoreUnknownColumns', 'passColumn', 'decimalComma',
] as const;

/** Batch options make no sense in single mode: say so rather than ignore them. */
export function rejectBatchOptions(opts: Partial<Record<(typeof BATCH_ONLY)[number], unknown>>, fileFlag: string): void {
  const given = BATCH_ONLY.find((key) => opts[key] !== undefined);
  if (given) throw new UsageError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: goes only with ${fileFlag}`);
}
