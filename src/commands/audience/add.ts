import type { Command } from 'commander';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { requestOf } from '../../http/endpoint.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import {
  batchHelp,
  configureMembershipAdd,
  membershipAddOptions,
  membershipAddOutput,
  runMembershipAdd,
} from '../../cmdutil/membership-add.js';

// The flag table and the JSON output of both membership adds (audience add, campaigns add).
export const options = membershipAddOptions;
export const output = membershipAddOutput;

export function configure(cmd: Command): void {
  configureMembershipAdd(cmd, 'audienceId', 'id (UUID) of the static audience').addHelpText(
    'after',
    `
One contact: --contact-id, --user-id or --email (precedence in that order). "added": false means
the contact was a member already. No such contact exits 5 (contact_not_found).
${batchHelp(`  $ cnv audience add c1000000-0000-4000-8000-000000000003 --email ada@example.com
  $ cnv audience add c1000000-0000-4000-8000-000000000003 --batch people.csv --report report.csv
  $ cnv audience add c1000000-0000-4000-8000-000000000003 --batch people.csv --report report.csv --resume-from-report report.csv`)}`,
  );
}

export function run(ctx: Context, input: CommandInput<typeof options>): Promise<CommandResult> {
  return runMembershipAdd(ctx, input, {
    noun: 'audience',
    command: 'audience add',
    single: (http, audienceId, contact, signal) =>
      http.call(ENDPOINTS.addToAudience, { params: { audienceId }, body: contact, signal }),
    batchRequest: (audienceId, contacts) =>
      requestOf(ENDPOINTS.batchAddToAudience, { params: { audienceId }, body: { contacts } }),
    batch: (http, audienceId, contacts, signal) =>
      http.call(ENDPOINTS.batchAddToAudience, { params: { audienceId }, body: { contacts }, signal }),
  });
}
