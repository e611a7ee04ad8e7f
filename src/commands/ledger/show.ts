import type { Command } from 'commander';
import { z } from 'zod';
import { stateDirOf } from '../../cmdutil/context-deps.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { commandOptions, switchFlag, withBrief } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import type { Context } from '../../context.js';
import { showLedger } from '../../ledger/ledger-view.js';
import type { CommandResult } from '../../output/render.js';
import { ledgerItemSchema } from './list.js';

export const options = commandOptions({
  entries: withBrief(
    switchFlag('--entries', 'list the entries instead: key, digest, state, id, code'),
    'list the entries instead',
  ),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { what: 'the job', schema: ledgerItemSchema() },
    {
      when: 'with --entries',
      what: 'an array of entries',
      schema: z.array(
        z.strictObject({
          key: z.string(),
          digest: z.string(),
          state: z.enum(['ok', 'refused']),
          id: z.string().nullable(),
          code: z.string().nullable(),
        }),
      ),
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<job>', 'the job, as `cnv ledger list` shows it').addHelpText(
    'after',
    `
Shows one job's ledger: its entries, its state and its last run; --entries lists every key
with the digest of the values sent, how the API took them (ok, refused) and the id it
answered. A job with no ledger exits 5. See docs/ledger.md.

Examples:
  $ cnv ledger show sk_live_demo@api.example.com/audience-sync/c1000000-0000-4000-8000-000000000003/identifier
  $ cnv ledger show JOB --entries -o csv > entries.csv`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const { item, entries } = showLedger({ stateDir: stateDirOf(ctx) }, String(args[0]));
  if (opts.entries)
    return {
      kind: 'list',
      rows: entries,
      columns: ['key', 'digest', 'state', 'id', 'code'],
      tableColumns: ['key', 'state', 'id', 'code'],
    };
  return { kind: 'record', data: item as unknown as Record<string, unknown> };
}
