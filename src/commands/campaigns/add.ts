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
  configureMembershipAdd(cmd, 'campaignId', 'id (UUID) of the custom campaign').addHelpText(
    'after',
    `
One contact: --contact-id, --user-id or --email (precedence in that order). "added": false means
the contact was a member already. An unknown or archived campaign exits 5 (campaign_not_found).
${batchHelp(`  $ cnv campaigns add c4000000-0000-4000-8000-000000000002 --user-id user-ada
  $ cnv campaigns add c4000000-0000-4000-8000-000000000002 --batch attendees.ndjson --report report.csv
  $ cat attendees.csv | cnv campaigns add c4000000-0000-4000-8000-000000000002 --batch - --input-format csv`)}`,
  );
}

export function run(ctx: Context, input: CommandInput<typeof options>): Promise<CommandResult> {
  return runMembershipAdd(ctx, input, {
    noun: 'campaign',
    command: 'campaigns add',
    single: (http, campaignId, contact, signal) =>
      http.call(ENDPOINTS.addToCampaign, { params: { campaignId }, body: contact, signal }),
    batchRequest: (campaignId, contacts) =>
      requestOf(ENDPOINTS.batchAddToCampaign, { params: { campaignId }, body: { contacts } }),
    batch: (http, campaignId, contacts, signal) =>
      http.call(ENDPOINTS.batchAddToCampaign, { params: { campaignId }, body: { contacts }, signal }),
  });
}
