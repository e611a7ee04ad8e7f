import type { Command } from 'commander';
import { z } from 'zod';
import {
  BATCH_GLOBALS,
  batchFlags,
  batchRunOptions,
  globalRunMode,
  checkBatchOptions,
  chunkSizeFlag,
  NUMBER_CONVENTION_FLAGS,
  IGNORE_UNKNOWN_COLUMNS_FLAG,
  SUMMARY_JSON_FLAG,
} from '../../cmdutil/batch-options.js';
import { commandOptions, switchFlag, textFlag, withBrief } from '../../cmdutil/flags.js';
import { RECORDS_DEFAULTS, recordValueFlags } from '../../cmdutil/records-flags.js';
import { runFileBatch } from '../../batch/file-run.js';
import { uuidSchema } from '../../endpoints/identifiers.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { recordsFileSpec } from '../../records/records-file.js';
import { batchDepsOf, recordsDepsOf } from '../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { fileRunDocument } from '../../cmdutil/run-documents.js';

const DEFAULTS = RECORDS_DEFAULTS;

export const options = commandOptions(
  {
    file: withBrief(
      textFlag('--file <file>', 'records: CSV (header row), NDJSON or a JSON array; - for stdin (required)'),
      'records: CSV, NDJSON or JSON array (required)',
    ),
    check: withBrief(
      switchFlag(
        '--check',
        'compare the file with the field definitions and validate every row; send nothing (the global --dry-run prints the requests instead)',
      ),
      'validate every row against the fields; send nothing',
    ),
    ...recordValueFlags(
      {
        coerce: 'send values as they are in the file (no field definitions are read)',
        emptyCells: 'an empty CSV cell: skip (leave the field unchanged) or null (clear it)',
      },
      {
        coerce: 'send values as they are (no definitions read)',
        emptyCells: 'an empty CSV cell: skip, or null (clears)',
      },
    ),
    ...batchFlags(DEFAULTS),
    ...IGNORE_UNKNOWN_COLUMNS_FLAG,
    ...NUMBER_CONVENTION_FLAGS,
    ...SUMMARY_JSON_FLAG,
    ...chunkSizeFlag(DEFAULTS.maxChunkSize),
  },
  { globals: BATCH_GLOBALS, check: checkBatchOptions },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const column = z.strictObject({
    column: z.string(),
    status: z.enum(['ok', 'unknown', 'read-only', 'key', 'ignored', 'mismatch']),
    dataType: z.string().nullable(),
    mismatches: z.number(),
    example: z.string().nullable(),
  });
  const check = z.strictObject({
    ok: z.boolean(),
    rows: z.number(),
    validRows: z.number(),
    invalidRows: z.number(),
    columns: z.array(column),
    problems: z.array(z.string()).describe('the first 20 invalid rows'),
  });
  return { documents: [fileRunDocument(), { when: 'with --check', what: 'the check report', schema: check }] };
};

export function configure(cmd: Command): void {
  cmd.argument('<customObjectId>', 'the custom object (UUID)').addHelpText(
    'after',
    `
Each row is a clientDedupKey plus field values: in CSV every other column names a field by its
key or label (any case; --map 'COLUMN=key' for others; a column that names no field refuses the
file, exit 2, unless --ignore-column or --ignore-unknown-columns leaves it out; a read-only field
is left out with a note); in NDJSON/JSON the fields sit beside clientDedupKey or in a "fields"
object. --check compares the columns with the definitions; --dry-run prints each request. Values are coerced
to each field's dataType (NUMBER, BOOLEAN, DATE, DATETIME, STRING) using the definitions read
once from the API; a value that does not coerce makes its row invalid (line and reason). When
the definitions cannot be read, a warning says so and values are sent as with --no-coerce.
Rows go in chunks of up to ${RECORDS_DEFAULTS.maxChunkSize}, concurrently; rows sharing a clientDedupKey are applied in file
order even across chunks. Exit 0 all ok, 6 some failed or invalid, 7 stopped or could not
finish (--resume-from-report sends what is missing), 8 the report could not be written,
2 bad flags or file (nothing sent), 4 the key may not write records, 5 no such custom
object (both at the first chunk). Every code: cnv help exit-codes. See docs/records.md.

Examples:
  $ cnv records upsert c0000000-0000-4000-8000-000000000001 --file subscriptions.csv --check
  $ cnv records upsert c0000000-0000-4000-8000-000000000001 --file subscriptions.csv --report result.csv
  $ cat records.ndjson | cnv records upsert c0000000-0000-4000-8000-000000000001 --file - --no-coerce`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const customObjectId = customObjectIdOf(args[0]);
  if (opts.file === undefined || opts.file === '')
    throw new UsageError('--file: required (a CSV, NDJSON or JSON file, or - for stdin)');
  const check = opts.check === true;
  const { spec, collector } = await recordsFileSpec(recordsDepsOf(ctx), {
    customObjectId,
    file: opts.file,
    command: 'records upsert',
    runOptions: batchRunOptions(opts, DEFAULTS, check ? 'check' : globalRunMode(ctx.globals)),
    coerce: opts.coerce,
    emptyCells: opts.emptyCells,
    check,
  });
  // A check's document is its report (below), not the run's summary.
  const result = await runFileBatch({ ...batchDepsOf(ctx), ...(check ? { printDocument: undefined } : {}) }, spec);
  if (!collector) return result;
  const report = collector.report();
  const exitCode = Math.max(result.exitCode ?? 0, report.ok ? ExitCode.ok : ExitCode.partial);
  return { kind: 'record', data: report, exitCode };
}

/** The CUSTOM_OBJECT_ID argument, a UUID (exit 2 otherwise). */
function customObjectIdOf(arg: unknown): string {
  const id = uuidSchema.safeParse(String(arg).trim());
  if (!id.success) throw new UsageError(`customObjectId: ${id.error.issues[0].message}, got "${arg}"`);
  return id.data;
}
