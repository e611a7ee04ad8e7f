import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import type { FieldDefinition } from '../../endpoints/fields.js';
import { listCustomObjectFields } from '../../endpoints/field-pages.js';
import { ENDPOINTS, MAX_RECORDS_PER_BATCH } from '../../endpoints/endpoints.js';
import type { RecordInput } from '../../endpoints/records.js';
import { requestOf } from '../../http/endpoint.js';
import type { ColumnResolver, ColumnRules } from '../../batch/columns/column-resolver.js';
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
import { commandOptions, flag, switchFlag, textFlag } from '../../cmdutil/flags.js';
import { runFileBatch } from '../../batch/file-run.js';
import { renameRow } from '../../batch/row-body.js';
import type { BatchItem, ItemOutcome } from '../../batch/types.js';
import { uuidSchema } from '../../endpoints/identifiers.js';
import { caseInsensitiveChoice } from '../../cmdutil/parse.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { ApiError, ExitCode, ResponseShapeError, TransientError, UsageError } from '../../errors.js';
import { InputFileError } from '../../input/input-reader.js';
import type { CommandResult } from '../../output/render.js';
import { CheckCollector } from '../../records/check.js';
import { DEDUP_KEY, definitionMap, prepareRecord, type EmptyCells } from '../../records/prepare.js';
import { recordOutcome, toFileRow } from '../../records/outcome.js';
import { batchDepsOf } from '../../cmdutil/context-deps.js';
import { BlankCells, numberColumn } from '../../batch/field-cells.js';
import { NumberConvention } from '../../input/number-convention.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { fileRunDocument } from '../../cmdutil/run-documents.js';

const DEFAULTS = {
  concurrency: 4,
  maxChunkSize: MAX_RECORDS_PER_BATCH,
  columns: 'records' as const,
  typedNumbers: true,
};

/** How a records file names its columns: clientDedupKey, and the custom object's fields by key or label. */
function recordColumns(customObjectId: string): ColumnRules {
  return {
    endpoint: `POST /v2/custom-objects/${customObjectId}/records/batch`,
    keys: [DEDUP_KEY, 'fields'],
    identifiers: [DEDUP_KEY],
    text: [DEDUP_KEY],
    objects: ['fields'],
    fieldParents: ['fields'],
    bareColumnsAreFields: true,
  };
}
const EMPTY_CELLS: readonly EmptyCells[] = ['skip', 'null'];

export const options = commandOptions(
  {
    file: textFlag('--file <file>', 'records: CSV (header row), NDJSON or a JSON array; - for stdin (required)'),
    check: switchFlag(
      '--check',
      'compare the file with the field definitions and validate every row; send nothing (the global --dry-run prints the requests instead)',
    ),
    /** false with --no-coerce. */
    coerce: flag('--no-coerce', 'send values as they are in the file (no field definitions are read)', z.boolean()),
    emptyCells: flag(
      '--empty-cells <mode>',
      'an empty CSV cell: skip (leave the field unchanged) or null (clear it)',
      z.enum(['skip', 'null']),
      { parse: caseInsensitiveChoice(EMPTY_CELLS), defaultValue: 'skip' },
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
Rows go in chunks of up to ${MAX_RECORDS_PER_BATCH}, concurrently; rows sharing a clientDedupKey are applied in file
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
  const id = uuidSchema.safeParse(String(args[0]).trim());
  if (!id.success) throw new UsageError(`customObjectId: ${id.error.issues[0].message}, got "${args[0]}"`);
  const customObjectId = id.data;
  if (opts.file === undefined || opts.file === '')
    throw new UsageError('--file: required (a CSV, NDJSON or JSON file, or - for stdin)');
  if (opts.file !== '-') await assertReadable(opts.file);
  const check = opts.check === true;
  const runOptions = batchRunOptions(opts, DEFAULTS, check ? 'check' : globalRunMode(ctx.globals));
  // Read once, before any row.
  const definitions = opts.coerce !== false || check ? await readDefinitions(ctx, customObjectId, check) : undefined;
  // The check judges each column by what the run's resolver makes of it (a label, a --map, a left-out column).
  let resolver: ColumnResolver | undefined;
  const collector =
    check && definitions ? new CheckCollector(definitions, (column) => resolver!.resolve(column).target) : undefined;
  // A check validates as a coercing run would, even with --no-coerce.
  const coercing = opts.coerce !== false || check;
  const numbers = new NumberConvention(runOptions.numbers);
  const blanks = new BlankCells('--empty-cells null clears the field instead');
  const prepareOptions = {
    definitions: coercing ? definitions : undefined,
    emptyCells: opts.emptyCells,
    coerce: { numbers },
  };
  const typesNumbers = [...(prepareOptions.definitions?.values() ?? [])].some(
    (d) => d.dataType.toUpperCase() === 'NUMBER',
  );

  // A check's document is its report (below), not the run's summary.
  const result = await runFileBatch<RecordInput>(
    { ...batchDepsOf(ctx), ...(check ? { printDocument: undefined } : {}) },
    {
      path: opts.file,
      job: { command: 'records upsert', target: customObjectId },
      options: runOptions,
      idColumn: 'id',
      columns: {
        rules: recordColumns(customObjectId),
        // Without coercion (--no-coerce, or definitions that cannot be read) every other column is a field key as written.
        definitions: async () => (coercing && definitions ? new Map([['fields', definitions]]) : undefined),
        keepUnknown: check,
        identifierColumns: [DEDUP_KEY],
      },
      prepare(row, columns) {
        resolver = columns;
        numbers.at(row.line);
        const prepared = prepareRecord(renameRow(row, columns, check).values ?? {}, {
          ...prepareOptions,
          csv: row.textual === true,
          blanks,
        });
        collector?.observe(row.line, row.values ?? {}, prepared);
        return toFileRow(prepared);
      },
      cells: {
        numbers,
        blanks,
        // JSON rows are typed too, and may name fields inside "fields".
        scanWanted: (input, columns) => typesNumbers && (input.format !== 'csv' || numberColumn(columns)),
        scan: (row, columns) =>
          void prepareRecord(renameRow(row, columns, check).values ?? {}, {
            ...prepareOptions,
            csv: row.textual === true,
          }),
      },
      request: (items) =>
        requestOf(ENDPOINTS.upsertRecords, {
          params: { customObjectId },
          body: { records: items.map((i) => i.payload) },
        }),
      // Rows of one record wait for the earlier chunk holding it: the last row in the file wins.
      orderKey: (record) => record.clientDedupKey,
      send: (items, signal) => sendChunk(ctx, customObjectId, items, signal),
    },
  );
  if (!collector) return result;
  const report = collector.report();
  const exitCode = Math.max(result.exitCode ?? 0, report.ok ? ExitCode.ok : ExitCode.partial);
  return { kind: 'record', data: report, exitCode };
}

/**
 * The custom object's field definitions. When they cannot be read (the API refuses the list,
 * answers off-contract, or stays unreachable) or none is listed for this custom object (an
 * unknown one, or a server whose list does not show it), a run warns and goes on without
 * coercion, as --no-coerce would, and the API judges each record (an unknown custom object
 * then stops the run at the first chunk). A --check, which exists to compare the file with the
 * definitions, fails when they cannot be read.
 */
async function readDefinitions(
  ctx: Context,
  customObjectId: string,
  check: boolean,
): Promise<Map<string, FieldDefinition> | undefined> {
  let fields: FieldDefinition[];
  try {
    fields = await listCustomObjectFields(await ctx.http(), customObjectId, ctx.signal);
  } catch (err) {
    if (check || !(err instanceof ApiError || err instanceof TransientError || err instanceof ResponseShapeError))
      throw err;
    ctx.warn(
      `could not read the field definitions (${err.code}: ${err.message}); values are sent as they are in the file, as with --no-coerce`,
    );
    return undefined;
  }
  if (fields.length === 0) {
    ctx.warn(
      `no field definitions are listed for custom object ${customObjectId} (unknown, or without fields); ${check ? 'every column is unknown' : 'values are sent as they are in the file, as with --no-coerce'}`,
    );
    if (!check) return undefined;
  }
  return definitionMap(fields);
}

// Before the definitions are read: a missing file is a local error, even offline.
async function assertReadable(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new InputFileError(path, info ? 'is not a file' : 'no such file');
}

async function sendChunk(
  ctx: Context,
  customObjectId: string,
  items: BatchItem<RecordInput>[],
  signal: AbortSignal,
): Promise<ItemOutcome[]> {
  try {
    const res = await (
      await ctx.http()
    ).call(ENDPOINTS.upsertRecords, {
      params: { customObjectId },
      body: { records: items.map((i) => i.payload) },
      signal,
    });
    return items.map((_, i) => recordOutcome(res.results[i]));
  } catch (err) {
    // A 400 refuses this chunk only; anything else (auth, not found, transient) stops the run.
    if (err instanceof ApiError && err.status === 400)
      return items.map(() => ({ status: 'failed', error: err.code, message: err.message }));
    throw err;
  }
}
