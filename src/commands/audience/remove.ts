import type { Command } from 'commander';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { IDENTIFIER_FLAGS, identifierFrom } from '../../cmdutil/identifier.js';
import { commandOptions } from '../../cmdutil/flags.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions(IDENTIFIER_FLAGS);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: ENDPOINTS.removeFromAudience.answer
        .schema()
        .extend({ outcome: z.enum(['removed', 'not_a_member', 'no_such_contact']) }),
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<audienceId>', 'id (UUID) of the static audience', uuidArgument).addHelpText(
    'after',
    `
Removes the membership in this audience only: the contact, its fields, its subscription status
and its other audiences stay. A contact that is not a member, or no contact at all, is a
success too; the printed "outcome" says which (removed, not_a_member, no_such_contact).
Needs the audience edit permission (exit 4 without it).

Examples:
  $ cnv audience remove c1000000-0000-4000-8000-000000000001 --email ada@example.com
  $ cnv audiences remove c1000000-0000-4000-8000-000000000001 --user-id user-ada --json`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const audienceId = args[0] as string;
  const contact = identifierFrom(opts, undefined, (m) => ctx.warn(m));
  const result = await (
    await ctx.http()
  ).call(ENDPOINTS.removeFromAudience, { params: { audienceId }, body: contact, signal: ctx.signal });
  // The spec only says "success when absent"; a null cnvContactId is how we learn no contact matched.
  const outcome = result.removed ? 'removed' : result.cnvContactId ? 'not_a_member' : 'no_such_contact';
  if (outcome === 'not_a_member') ctx.info('note: the contact was not a member of this audience; nothing changed');
  if (outcome === 'no_such_contact') ctx.info('note: no contact matched; nothing changed');
  return { kind: 'record', data: { ...result, outcome } };
}
