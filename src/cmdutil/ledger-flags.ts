import type { BatchDefaults, BatchRunOptions, RunMode } from '../batch/batch-run-options.js';
import type { Context } from '../context.js';
import type { LedgerDeps } from '../ledger/ledger.js';
import { batchFlags, batchRunOptions, SUMMARY_JSON_FLAG } from './batch-options.js';
import { batchDepsOf, noticesOf, stateDirOf } from './context-deps.js';
import { flag, switchFlag, textFlag } from './flags.js';
import { z } from 'zod';
import { INPUT_FORMATS } from '../input/input-rows.js';
import { INPUT_ENCODINGS } from '../input/text-decode.js';
import type { BatchDeps } from '../batch/batch-deps.js';

// The flags and inputs of the commands that run against a ledger (docs/ledger.md): audience
// sync, campaigns sync, records sync. Their help is short (long prose is in the docs), so the
// file flags are the batch commands' with shorter help; --resume-from-report and --force are not
// theirs: the ledger is how a run resumes, and its report is always written anew.

/** A value among `values`, any of them named in the message when another is given. */
const oneOf = <T extends string>(values: readonly T[]) =>
  z
    .custom<T>((v) => typeof v === 'string' && (values as readonly string[]).includes(v), {
      message: `expected one of ${values.join(', ')}`,
    })
    .optional();

/** A flag of another table with a shorter help line. */
export const short = <F extends { description: string }>(f: F, description: string): F => ({ ...f, description });

/** --file, the report and summary, concurrency and the input flags of a ledger job. */
export function ledgerFileFlags(defaults: BatchDefaults) {
  const b = batchFlags(defaults);
  return {
    file: textFlag('--file <file>', 'the rows: a CSV, NDJSON or JSON file (- for stdin)'),
    report: short(b.report, "write every row's result as CSV (- for stdout)"),
    summaryJson: short(SUMMARY_JSON_FLAG.summaryJson, 'write the run summary as JSON (- for stdout)'),
    concurrency: short(b.concurrency, `requests in flight at once (default ${defaults.concurrency})`),
    // Their values are checked by the schema: the help does not list them (docs/batches.md does).
    inputFormat: flag('--input-format <format>', 'csv, ndjson or json (default: by extension)', oneOf(INPUT_FORMATS)),
    delimiter: short(b.delimiter, 'CSV delimiter: one character, or "tab"'),
    encoding: flag('--encoding <name>', 'of a file without a BOM: windows-1252, utf-16le...', oneOf(INPUT_ENCODINGS)),
    map: short(b.map, "send a column as a target, e.g. 'Work Email=email'"),
    ignoreColumn: short(b.ignoreColumn, 'leave this column out (repeatable)'),
  };
}

/** --exit-code, as `contacts sync` has it. */
export const EXIT_CODE_FLAG = {
  exitCode: switchFlag('--exit-code', 'exit 9 when anything is (or would be) sent'),
};

/** A ledger job's run options: its report is always written anew (an unfinished one too: the ledger resumes). */
export function ledgerRunOptions(
  opts: Parameters<typeof batchRunOptions>[0],
  defaults: BatchDefaults,
  mode: RunMode,
): BatchRunOptions {
  return { ...batchRunOptions(opts, defaults, mode), resumeFromReport: undefined, force: true };
}

/**
 * What a ledger job takes from the context: the file run's inputs (no resume command: the same
 * command resumes) and the ledger's.
 */
export function ledgerJobDeps(ctx: Context, plan: boolean): { batch: BatchDeps; ledger: LedgerDeps } {
  const batch: BatchDeps = { ...batchDepsOf(ctx), resumeCommand: undefined };
  // With --plan, stdout is the plan: no summary document after it.
  if (plan) batch.printDocument = undefined;
  return { batch, ledger: { stateDir: stateDirOf(ctx), notices: noticesOf(ctx), clock: ctx.clock } };
}
