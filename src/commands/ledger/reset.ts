import type { Command } from 'commander';
import { z } from 'zod';
import { stateDirOf } from '../../cmdutil/context-deps.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { commandOptions, switchFlag } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import type { Context } from '../../context.js';
import { resetLedger, showLedger } from '../../ledger/ledger-view.js';
import type { CommandResult } from '../../output/render.js';
import { confirmDeletion } from '../../terminal/confirm.js';

export const options = commandOptions({
  yes: switchFlag('-y, --yes', 'delete without asking (required off a terminal)'),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [{ schema: z.strictObject({ job: z.string(), removed: z.boolean() }) }],
});

export function configure(cmd: Command): void {
  cmd.argument('<job>', 'the job, as `cnv ledger list` shows it').addHelpText(
    'after',
    `
Deletes a job's ledger (under its lock: exit 7 while a run holds it). Its next run sends every
row again and removes nothing: what the job added earlier is no longer known to be its own. On
a terminal it asks first; off a terminal nothing is deleted without --yes (exit 2). A job with
no ledger exits 5. See docs/ledger.md.

Examples:
  $ cnv ledger reset sk_live_demo@api.example.com/records-sync/c0000000-0000-4000-8000-000000000001/clientDedupKey
  $ cnv ledger reset JOB --yes        # in a script: required off a terminal`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const job = String(args[0]);
  const deps = { stateDir: stateDirOf(ctx) };
  const { item } = showLedger(deps, job);
  await confirmDeletion(ctx.io, opts.yes, `ledger reset ${job}`, () => {
    const about =
      item.state === 'damaged' ? `damaged: ${item.damaged}` : `${item.entries} entries, ${item.ids} with ids`;
    return `delete the ledger of "${job}" (${about})? Its next run sends every row and removes nothing.`;
  });
  await resetLedger(deps, job);
  return { kind: 'record', data: { job, removed: true } };
}
