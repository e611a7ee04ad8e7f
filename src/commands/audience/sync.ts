import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import {
  AUDIENCE_SYNC,
  audienceSyncOptions,
  membershipSyncOutput,
  runMembershipSync,
} from '../../cmdutil/membership-sync.js';

export const options = audienceSyncOptions;
export const output = () => membershipSyncOutput(true);

export function configure(cmd: Command): void {
  cmd.argument('<audienceId>', 'id (UUID) of the static audience', uuidArgument).addHelpText(
    'after',
    `
Adds the file's contacts the job has not added (1000 a request); removes (one request each)
those it added that the file no longer holds, never another member: only after a whole file
and with a whole ledger, held past --max-removals (listed, exit 6). Exit 0, 6 (failed, invalid
or held rows), 7 (stopped, or another run of the job), 9 (--exit-code, changes). docs/ledger.md

Examples:
  $ cnv audience sync c1000000-0000-4000-8000-000000000003 --file pro-plan.csv --plan
  $ cnv audience sync c1000000-0000-4000-8000-000000000003 --file pro-plan.csv --report sync.csv
  $ cnv audience sync c1000000-0000-4000-8000-000000000003 --file crm.csv --key-column crm_id`,
  );
}

export function run(ctx: Context, input: CommandInput<typeof options>): Promise<CommandResult> {
  return runMembershipSync(ctx, input, AUDIENCE_SYNC);
}
