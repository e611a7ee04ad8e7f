import type { Command } from 'commander';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { what: 'the campaign object, with description and type.statuses', schema: ENDPOINTS.getCampaign.answer.schema() },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<campaignId>', 'id (UUID) of the custom campaign', uuidArgument).addHelpText(
    'after',
    `
Prints the campaign with its description and its type's member statuses, in the type's
progression order (isSuccess marks the statuses that count as success). An unknown or archived
campaign exits 5 (campaign_not_found).

Examples:
  $ cnv campaigns get c4000000-0000-4000-8000-000000000001
  $ cnv campaigns get c4000000-0000-4000-8000-000000000001 --json | jq -r '.type.statuses[].name'`,
  );
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const campaign = await (
    await ctx.http()
  ).call(ENDPOINTS.getCampaign, { params: { campaignId: args[0] as string }, signal: ctx.signal });
  return { kind: 'record', data: campaign };
}
