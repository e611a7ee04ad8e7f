import { z } from 'zod';
import { once } from '../lib/once.js';
import type { JsonDocument } from './json-output.js';
import type { ExportSummary } from '../exporter/run-summary.js';

// The result documents several commands share (each command's `output` names them): a file or
// batch run's summary (src/batch/file-run.ts writes it) and an export's (src/exporter/run-summary.ts).

const str = z.string();
const num = z.number();

/** The summary of a file or batch run: the --summary-json document, printed with --json or -q. */
export const fileRunSummary = once(() =>
  z.strictObject({
    status: z.enum(['complete', 'partial', 'failed', 'interrupted']),
    rows: num,
    succeeded: num,
    failed: num,
    invalid: num,
    skipped: num,
    valid: num.optional().describe('with --dry-run'),
    byStatus: z.record(str.describe('STATUS'), num),
    doneInEarlierRun: num,
    elapsedMs: num,
    rowsPerSecond: num,
    dryRun: z.boolean(),
    report: str.nullable(),
    stopped: str.nullable(),
    exitCode: num,
    columns: z
      .array(z.strictObject({ column: str, sentAs: str.nullable(), note: str }))
      .describe('the column table, docs/batches.md'),
    blankCells: z.strictObject({ cells: num, columns: z.array(str) }).optional(),
  }),
);

/** The `ledger` member of a ledger job's summary (docs/ledger.md). */
const ledgerSummarySchema = once(() =>
  z.strictObject({
    job: str,
    trusted: z.boolean().describe('false when the ledger was missing or damaged: every row sent, nothing removed'),
    added: num,
    updated: num,
    unchanged: num,
    removed: num,
    held: num,
    failed: num,
  }),
);

const WITH_JSON =
  'with --json or -q (the --summary-json document; with --report - they are refused: stdout holds the report)';

/** A ledger job's run summary (docs/ledger.md): the file run's, with its `ledger` member; the help shows it in short. */
export const ledgerRunDocument = (): JsonDocument => ({
  ...fileRunDocument(undefined, fileRunSummary().extend({ ledger: ledgerSummarySchema() })),
  brief:
    '{status, rows, succeeded, failed, invalid, skipped, byStatus, ..., ' +
    'ledger: {job, trusted, added, updated, unchanged, removed, held, failed}} (docs/output.md has every member)',
  note: 'with --json or -q',
});

/**
 * A file or batch run's document, chosen by `when` (`with --file`); `schema` extends
 * fileRunSummary() where a run adds members.
 */
export const fileRunDocument = (when?: string, schema: z.ZodType = fileRunSummary()): JsonDocument => ({
  when,
  what: 'the run summary',
  schema,
  note: WITH_JSON,
});

/** An export's summary: the --summary-json document, printed with --json or -q when the rows go to --out. */
export const exportSummary = once(() =>
  z.strictObject({
    command: str,
    status: z.enum(['complete', 'stopped', 'failed', 'interrupted']),
    rows: num,
    skipped: num,
    pages: num,
    bytes: num,
    elapsedMs: num,
    stateKey: str.nullable(),
    runId: str.nullable(),
    moreRemains: z.boolean(),
    output: str,
    pending: z.boolean(),
    cutBytes: num,
    fieldChanges: z
      .strictObject({
        relabelled: z.array(z.strictObject({ key: str, column: str.optional(), from: str, to: str })),
        added: z.array(z.strictObject({ key: str, label: str })),
        removed: z.array(z.strictObject({ key: str, column: str.optional() })),
      })
      .optional()
      .describe(
        "contacts: the account's fields changed since the CSV file was made, or since the last NDJSON run (docs/exports.md)",
      ),
    extra: z
      .strictObject({ values: num, rows: num, members: z.array(str) })
      .optional()
      .describe('CSV: the values written to _extra, which no column of the header holds (docs/exports.md)'),
    resumedAt: num
      .optional()
      .describe(
        'the last run of this state did not complete (Ctrl-C, a kill, a failure): the row this one went on from',
      ),
  }),
);

/** True when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;
/**
 * Compiles only while the declared export summary is the one the exporter writes: a member added to
 * one and not the other fails here.
 */
type _DeclaredIsWritten = Expect<
  Same<z.infer<ReturnType<typeof exportSummary>>, Omit<ExportSummary, 'types' | 'window'> & { command: string }>
>;

/** One email type's part of a run over several (`types`). */
export const typeOutcome = once(() =>
  z.strictObject({ status: z.enum(['complete', 'stopped', 'failed']), rows: num, pages: num, error: str.optional() }),
);

/** An export's document; `schema` is exportSummary() or an extension of it. */
export const exportDocument = (schema: z.ZodType): JsonDocument => ({
  what: 'the run summary',
  schema,
  note:
    'with --json or -q when the rows go to --out (the --summary-json document; ' +
    'with the rows on stdout they are refused: use --summary-json FILE); with --dry-run the request instead',
});
