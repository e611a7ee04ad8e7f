import type { Command } from 'commander';
import { z } from 'zod';
import { DATA_TYPES, FIELD_OBJECT_TYPES, type CreateFieldBody } from '../../endpoints/fields.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { caseInsensitiveChoice } from '../../cmdutil/parse.js';
import { commandOptions, flag, textFlag, type ValuesOf } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { FIELD_KEY_RE } from '../../cmdutil/relationship-side.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

export const options = commandOptions({
  label: textFlag('--label <text>', 'display name (required)'),
  objectType: flag('--object-type <type>', `object the field belongs to: ${FIELD_OBJECT_TYPES.join(', ')} (any case)`, z.enum(FIELD_OBJECT_TYPES).optional(), { parse: caseInsensitiveChoice(FIELD_OBJECT_TYPES) }),
  dataType: flag('--data-type <type>', `value type: ${DATA_TYPES.join(', ')} (any case)`, z.enum(DATA_TYPES).optional(), { parse: caseInsensitiveChoice(DATA_TYPES) }),
  key: textFlag('--key <key>', 'key used in `fields` maps (letters, digits, underscores); default: derived from the label by the API'),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({ documents: [{ what: 'the field', schema: ENDPOINTS.createField.answer.schema() }] });

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
The key must be unique in the account; a taken key exits 3 (invalid_field).
Needs the endpoint enabled for the account (else exit 4, export_not_enabled).

Examples:
  $ cnv fields create --label "Loyalty tier" --object-type contact --data-type string
  $ cnv fields create --label "Lifetime value (EUR)" --object-type CONTACT --data-type NUMBER --key ltvEur`);
}

/** The request body from the flags; every problem the API would refuse for sure is caught here. */
export function createBody(opts: ValuesOf<typeof options>): CreateFieldBody {
  const label = opts.label?.trim() ?? '';
  if (label === '') throw new UsageError('--label: required (the field\'s display name)');
  if (opts.objectType === undefined) throw new UsageError(`--object-type: required, one of ${FIELD_OBJECT_TYPES.join(', ')}`);
  if (opts.dataType === undefined) throw new UsageError(`--data-type: required, one of ${DATA_TYPES.join(', ')}`);
  const body: CreateFieldBody = { label, objectType: opts.objectType, dataType: opts.dataType };
  if (opts.key !== undefined) {
    const key = opts.key.trim();
    if (!FIELD_KEY_RE.test(key)) throw new UsageError(`--key: only letters, digits and underscores are allowed, got "${opts.key}"`);
    body.key = key;
  }
  return body;
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const field = await (await ctx.http()).call(ENDPOINTS.createField, { body: createBody(opts), signal: ctx.signal });
  return { kind: 'record', data: field };
}
