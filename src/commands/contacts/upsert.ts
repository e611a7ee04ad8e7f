import type { Command } from 'commander';
import { upsertContact, type UpsertContactBody } from '../../api/contacts.js';
import { emailSchema, uuidSchema } from '../../cli/identifier.js';
import { caseInsensitiveChoice, collectPair, pairsToObject } from '../../cli/parse.js';
import type { CommandInput } from '../../cli/registry.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../io/render.js';

export const SETTABLE_STATUSES = ['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS'] as const;
const NAMED_BODY_KEYS = new Set(['email', 'cnvContactId', 'subscriptionStatus', 'fields', 'companyFields', 'updateOnly']);

export function configure(cmd: Command): void {
  cmd
    .option('--email <address>', 'identifies the contact; with --contact-id it becomes the new address')
    .option('--contact-id <uuid>', 'identifies the contact by cnvContactId (wins over --email)')
    .option('--status <status>', `subscription status: ${SETTABLE_STATUSES.join(', ')} (any case)`, caseInsensitiveChoice(SETTABLE_STATUSES))
    .option('--field <key=value>', 'contact field (repeatable); value parsed as JSON when it parses', collectPair)
    .option('--company-field <key=value>', 'field of the contact\'s company (repeatable)', collectPair)
    .option('--update-only', 'never create: fail with exit 5 when no contact matches')
    .option('--set <name=value>', 'any other body field, e.g. a flag the spec names but does not spell (repeatable)', collectPair)
    .addHelpText('after', `
Examples:
  $ cnv contacts upsert --email ada@example.com --status subscribed --field firstName=Ada --field score=42
  $ cnv contacts upsert --contact-id 7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f --email new@example.com --update-only
  $ cnv contacts upsert --email ada@example.com --set preserveExisting=true --field city=London`);
}

/** Builds the request body from the flags, checking locally what the API would refuse. */
export function upsertBody(opts: Record<string, unknown>): UpsertContactBody {
  const body: UpsertContactBody = {};
  if (opts.contactId !== undefined) {
    const id = uuidSchema.safeParse(opts.contactId);
    if (!id.success) throw new UsageError(`--contact-id: ${id.error.issues[0].message}, got "${opts.contactId}"`, undefined, 'invalid_request');
    body.cnvContactId = id.data;
  }
  if (opts.email !== undefined) {
    const email = emailSchema.safeParse(opts.email);
    if (!email.success) throw new UsageError(`--email: not a valid email address: "${opts.email}"`, undefined, 'invalid_email');
    body.email = email.data;
  }
  if (!body.email && !body.cnvContactId) {
    throw new UsageError('identify the contact with --email or --contact-id', undefined, 'missing_identifier');
  }
  if (opts.status !== undefined) body.subscriptionStatus = String(opts.status);
  const fields = pairsToObject(opts.field as Array<[string, unknown]> | undefined);
  if (fields) body.fields = fields;
  const companyFields = pairsToObject(opts.companyField as Array<[string, unknown]> | undefined);
  if (companyFields) body.companyFields = companyFields;
  if (opts.updateOnly) body.updateOnly = true;
  for (const [name, value] of (opts.set as Array<[string, unknown]> | undefined) ?? []) {
    if (NAMED_BODY_KEYS.has(name)) throw new UsageError(`--set ${name}: use the dedicated flag for ${name}`);
    body[name] = value;
  }
  return body;
}

export async function run(ctx: Context, { opts }: CommandInput): Promise<CommandResult> {
  const body = upsertBody(opts);
  const result = await upsertContact(await ctx.http(), body, ctx.signal);
  return { kind: 'record', data: result };
}
