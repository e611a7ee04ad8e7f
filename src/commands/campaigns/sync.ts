import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import {
  CAMPAIGN_SYNC,
  campaignSyncOptions,
  membershipSyncOutput,
  runMembershipSync,
} from '../../cmdutil/membership-sync.js';

export const options = campaignSyncOptions;
export const output = () => membershipSyncOutput(false);

export function configure(cmd: Command): void {
  cmd.argument('<campaignId>', 'id (UUID) of the custom campaign', uuidArgument).addHelpText(
    'after',
    `
Adds the file's contacts the job has not added yet (1000 a request), as audience sync does,
without removals: the API cannot remove a contact from a campaign, so a contact that leaves
the file stays a member (and in the ledger). Exit 0, 6 (rows failed or invalid), 7 (stopped,
or another run of the job), 9 (--exit-code, changes). See docs/ledger.md.

Examples:
  $ cnv campaigns sync c4000000-0000-4000-8000-000000000002 --file attendees.csv --plan
  $ cnv campaigns sync c4000000-0000-4000-8000-000000000002 --file attendees.csv --report sync.csv`,
  );
}

export function run(ctx: Context, input: CommandInput<typeof options>): Promise<CommandResult> {
  return runMembershipSync(ctx, input, CAMPAIGN_SYNC);
}
