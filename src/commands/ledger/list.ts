import type { Command } from 'commander';
import { z } from 'zod';
import { stateDirOf } from '../../cmdutil/context-deps.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { chosenColumns, columnsFlag, type ListColumns } from '../../cmdutil/list-fields-flag.js';
import type { Context } from '../../context.js';
import { listLedgers } from '../../ledger/ledger-view.js';
import type { CommandResult } from '../../output/render.js';

const ALL = [
  'job',
  'state',
  'entries',
  'ids',
  'refused',
  'pending',
  'command',
  'target',
  'keyColumn',
  'lastRun',
  'writtenAt',
  'damaged',
];
const COLUMNS: ListColumns = { all: ALL, table: ['job', 'state', 'entries', 'writtenAt'] };

export const options = commandOptions(columnsFlag(COLUMNS));

/** The item `ledger list` and `ledger show` print (docs/ledger.md). */
export const ledgerItemSchema = () =>
  z.strictObject({
    job: z.string(),
    command: z.string().nullable(),
    target: z.string().nullable(),
    keyColumn: z.string().nullable(),
    state: z.enum(['ok', 'damaged', 'running']),
    damaged: z.string().nullable().describe('why it is damaged'),
    entries: z.number(),
    ids: z.number().describe('entries with the id the API answered'),
    refused: z.number(),
    pending: z.number().describe('journal records since the base'),
    lastRun: z
      .strictObject({
        startedAt: z.string(),
        finishedAt: z.string(),
        status: z.string(),
        counts: z.record(z.string(), z.number()),
      })
      .nullable(),
    writtenAt: z.string().nullable(),
  });

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { what: 'an array of jobs', schema: z.array(ledgerItemSchema()), note: '(with --columns only those members)' },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Lists the ledgers of this config directory: one per job (account, command, target, key
column), with its entries, its state (ok, damaged, running) and its last run. See docs/ledger.md.

Examples:
  $ cnv ledger list
  $ cnv ledger list -q '[].job'`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const rows = listLedgers(stateDirOf(ctx).path) as unknown as Array<Record<string, unknown>>;
  return { kind: 'list', rows, ...chosenColumns(opts, COLUMNS) };
}
