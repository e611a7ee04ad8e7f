import { InvalidArgumentError, Option, type Command } from 'commander';
import { z } from 'zod';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { INPUT_FORMATS, type InputFormat } from '../io/input-rows.js';
import { INPUT_ENCODINGS } from '../io/text-decode.js';
import { addSummaryJsonOption, summaryJsonTarget } from '../io/summary-json.js';
import { integer } from '../lib/option-values.js';

/** Options of every batch or file mode, as `runFileBatch` takes them. */
export interface BatchRunOptions {
  inputFormat?: InputFormat;
  delimiter?: string;
  /** --encoding: how to read an input file without a byte order mark (default UTF-8). */
  encoding?: string;
  report?: string;
  resumeFromReport?: string;
  concurrency: number;
  chunkSize: number;
  /** The global --dry-run: validate every row and report, send nothing. */
  dryRun: boolean;
  /** --summary-json: where the run summary goes as JSON (a file, or - for stdout). */
  summaryJson?: string;
}

export interface BatchDefaults {
  /** Default --concurrency (requests in flight). */
  concurrency: number;
  /** The endpoint's item limit; adds --chunk-size when above 1. */
  maxChunkSize: number;
}

/** The options `addBatchOptions` adds (less --chunk-size), as commander produces them. */
export const batchOptionShape = {
  inputFormat: z.enum(['csv', 'ndjson', 'json']).optional(),
  delimiter: z.string().optional(),
  encoding: z.string().optional(),
  report: z.string().optional(),
  resumeFromReport: z.string().optional(),
  concurrency: z.number().optional(),
  summaryJson: z.string().optional(),
};

/** --chunk-size, which `addBatchOptions` adds when the endpoint takes more than one item. */
export const chunkSizeShape = { chunkSize: z.number().optional() };

/** A batch command's options, as `batchRunOptions` reads them (the file flag is --file or --batch). */
export type BatchOptionValues = z.output<z.ZodObject<typeof batchOptionShape & typeof chunkSizeShape>> & { file?: string; batch?: string };

/** Adds the input, report and concurrency options shared by every batch or file mode. */
export function addBatchOptions(cmd: Command, defaults: BatchDefaults): Command {
  cmd
    .addOption(new Option('--input-format <format>', 'input format when the extension does not say (default: by extension, else sniffed)').choices([...INPUT_FORMATS]))
    .option('--delimiter <char>', 'CSV field delimiter: one character, or "tab" (default "," or a tab for .tsv)', delimiter)
    .addOption(new Option('--encoding <name>', 'text encoding of an input file without a byte order mark (default utf-8; UTF-16 with a BOM is read as such)').choices([...INPUT_ENCODINGS]))
    .option('--report <file>', 'write every row\'s result as CSV (line, identifier, status, ..., error, message, row, hash) after a first line naming the run; - for stdout')
    .option('--resume-from-report <file>', 'send only the rows that have no success in this earlier report of the same command, target and input (matched by row and content)')
    .option('--concurrency <n>', `requests in flight at once (default ${defaults.concurrency})`, integer(1, 64));
  addSummaryJsonOption(cmd);
  if (defaults.maxChunkSize > 1) {
    cmd.option('--chunk-size <n>', `rows per request, 1 to ${defaults.maxChunkSize} (default ${defaults.maxChunkSize})`, integer(1, defaults.maxChunkSize));
  }
  return cmd;
}

/** The batch options of a command, with defaults applied. */
export function batchRunOptions(ctx: Context, opts: BatchOptionValues, defaults: BatchDefaults): BatchRunOptions {
  return {
    inputFormat: opts.inputFormat,
    delimiter: opts.delimiter,
    encoding: opts.encoding,
    report: opts.report,
    resumeFromReport: opts.resumeFromReport,
    concurrency: opts.concurrency ?? defaults.concurrency,
    chunkSize: opts.chunkSize ?? defaults.maxChunkSize,
    dryRun: ctx.globals.dryRun,
    summaryJson: summaryJsonTarget(opts.summaryJson, opts.report === '-', { '--report': opts.report, '--resume-from-report': opts.resumeFromReport, '--file/--batch': opts.file ?? opts.batch }),
  };
}

function delimiter(text: string): string {
  if (text === 'tab' || text === '\\t') return '\t';
  if ([...text].length !== 1) throw new InvalidArgumentError(`expected one character or "tab", got "${text}"`);
  if (text === '"' || text === '\n' || text === '\r') throw new InvalidArgumentError('the delimiter cannot be a quote or a line break');
  return text;
}

const BATCH_ONLY = ['inputFormat', 'delimiter', 'encoding', 'report', 'resumeFromReport', 'concurrency', 'chunkSize', 'summaryJson'] as const;

/** Batch options make no sense in single mode: say so rather than ignore them. */
export function rejectBatchOptions(opts: Partial<Record<(typeof BATCH_ONLY)[number], unknown>>, fileFlag: string): void {
  const given = BATCH_ONLY.find((key) => opts[key] !== undefined);
  if (given) throw new UsageError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: goes only with ${fileFlag}`);
}
