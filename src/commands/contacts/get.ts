import type { Command } from 'commander';
import { getContact } from '../../endpoints/contact-lookup.js';
import { identifierFrom } from '../../cmdutil/identifier.js';
import { commandOptions, textFlag, withBrief } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

export const options = commandOptions({
  contactId: textFlag('--contact-id <uuid>', 'the contact by cnvContactId (wins over --email)'),
  email: withBrief(
    textFlag('--email <address>', 'the contact by email (the most recently updated one when several share it)'),
    'the contact by email',
  ),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [{ what: 'the contact object', schema: ENDPOINTS.getContact.answer.schema().unwrap().unwrap() }],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
No match exits with code 5.

Examples:
  $ cnv contacts get --email ada@example.com
  $ cnv contacts get --contact-id 7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f --json | jq .fields`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const id = identifierFrom(opts, ['contactId', 'email'], (m) => ctx.warn(m));
  const contact = await getContact(await ctx.http(), id, ctx.signal);
  return { kind: 'record', data: contact };
}
