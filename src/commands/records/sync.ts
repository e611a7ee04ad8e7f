import type { Command } from 'commander';
import {
  BATCH_GLOBALS,
  checkBatchOptions,
  globalRunMode,
  IGNORE_UNKNOWN_COLUMNS_FLAG,
  NUMBER_CONVENTION_FLAGS,
} from '../../cmdutil/batch-options.js';
import { recordsDepsOf } from '../../cmdutil/context-deps.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { commandOptions, switchFlag } from '../../cmdutil/flags.js';
import { RECORDS_DEFAULTS, recordValueFlags } from '../../cmdutil/records-flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { EXIT_CODE_FLAG, ledgerFileFlags, ledgerJobDeps, ledgerRunOptions, short } from '../../cmdutil/ledger-flags.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import { ledgerRunDocument } from '../../cmdutil/run-documents.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { ledgerJob } from '../../ledger/ledger-job.js';
import { runLedgerJob } from '../../ledger/ledger-run.js';
import type { CommandResult } from '../../output/render.js';
import { DEDUP_KEY } from '../../records/prepare.js';
import { recordsFileSpec } from '../../records/records-file.js';

const DEFAULTS = RECORDS_DEFAULTS;

export const options = commandOptions(
  {
    ...ledgerFileFlags(DEFAULTS),
    full: switchFlag('--full', 'send every record, whatever the ledger says'),
    ...EXIT_CODE_FLAG,
    ...recordValueFlags({
      coerce: 'send values as written (no definitions read)',
      emptyCells: 'skip or null (clears)',
    }),
    ignoreUnknownColumns: short(
      IGNORE_UNKNOWN_COLUMNS_FLAG.ignoreUnknownColumns,
      'leave out every column that names nothing',
    ),
    decimalPoint: short(NUMBER_CONVENTION_FLAGS.decimalPoint, 'NUMBER cells have a decimal point (1,234.5)'),
    decimalComma: short(NUMBER_CONVENTION_FLAGS.decimalComma, 'NUMBER cells have a decimal comma (1.234,5)'),
  },
  {
    globals: BATCH_GLOBALS,
    check(opts) {
      if (opts.file === undefined)
        throw new UsageError('--file: required (the records, one a row)', 'e.g. --file records.csv', 'missing_file');
      checkBatchOptions(opts);
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [ledgerRunDocument()],
});

export function configure(cmd: Command): void {
  cmd.argument('<customObjectId>', 'the custom object (UUID)', uuidArgument).addHelpText(
    'after',
    `
Reads the file as records upsert does, and sends only the records whose values differ from
what the ledger says cnv sent (200 a request, a key's rows in file order); the rest cost no
request. A record changed in the account since is not seen: --full sends all. Failed rows go
again next run (refused ones once their values change). Exit 0, 6 (rows failed or invalid), 7
(stopped, or another run of the job), 9 (--exit-code, rows sent). See docs/ledger.md.

Examples:
  $ cnv records sync c0000000-0000-4000-8000-000000000001 --file subscriptions.csv --report sync.csv
  $ cnv records sync c0000000-0000-4000-8000-000000000001 --file subscriptions.csv --full`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const customObjectId = String(args[0]);
  const runOptions = ledgerRunOptions(opts, DEFAULTS, globalRunMode(ctx.globals));
  const make = async () =>
    (
      await recordsFileSpec(recordsDepsOf(ctx), {
        customObjectId,
        file: opts.file!,
        command: 'records sync',
        runOptions,
        coerce: opts.coerce,
        emptyCells: opts.emptyCells,
      })
    ).spec;
  return runLedgerJob(
    ledgerJobDeps(ctx, false),
    { mode: runOptions.mode, make },
    {
      job: ledgerJob(await ctx.credentials(), 'records sync', customObjectId, DEDUP_KEY),
      track: { key: (_row, prepared) => prepared.payload.clientDedupKey, full: opts.full === true },
      exitCode: opts.exitCode === true,
    },
  );
}
