import type { Command } from 'commander';
import { z } from 'zod';
import { DATA_TYPES, FIELD_OBJECT_TYPES, type CreateFieldBody, type FieldDefinition } from '../../endpoints/fields.js';
import { allFieldPages } from '../../endpoints/field-pages.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { caseInsensitiveChoice } from '../../cmdutil/parse.js';
import { commandOptions, flag, switchFlag, textFlag, type ValuesOf, withBrief } from '../../cmdutil/flags.js';
import { existingField } from './if-missing.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { FIELD_KEY_RE } from '../../cmdutil/relationship-side.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

export const options = commandOptions({
  label: textFlag('--label <text>', 'display name (required)'),
  objectType: withBrief(
    flag(
      '--object-type <type>',
      `object the field belongs to: ${FIELD_OBJECT_TYPES.join(', ')} (any case)`,
      z.enum(FIELD_OBJECT_TYPES).optional(),
      { parse: caseInsensitiveChoice(FIELD_OBJECT_TYPES) },
    ),
    FIELD_OBJECT_TYPES.join(', '),
  ),
  dataType: withBrief(
    flag('--data-type <type>', `value type: ${DATA_TYPES.join(', ')} (any case)`, z.enum(DATA_TYPES).optional(), {
      parse: caseInsensitiveChoice(DATA_TYPES),
    }),
    `${DATA_TYPES.join(', ')} (any case)`,
  ),
  key: withBrief(
    textFlag(
      '--key <key>',
      'key used in `fields` maps (letters, digits, underscores); default: derived from the label by the API',
    ),
    'key in `fields` maps (default: from the label)',
  ),
  ifMissing: switchFlag(
    '--if-missing',
    'create it only if the account lacks it: a field with this --key (else this label, of this object type) that matches is printed, exit 0; one that differs is exit 3, naming what differs',
  ),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [{ what: 'the field', schema: ENDPOINTS.createField.answer.schema() }],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
The key must be unique in the account; a taken key exits 3 (invalid_field).
Needs the endpoint enabled for the account (else exit 4, export_not_enabled).

--if-missing makes it a step a CI job can repeat: the account's fields are read first (GET
/v2/fields). With --key, the field of that key (keys are unique across object types); without,
the field of this --object-type whose label is this --label (any case). When it matches (object
type, data type, label, key) it is printed as created fields are, exit 0, and nothing is sent;
when it differs, exit 3 (field_differs) naming each difference. None: the field is created.

Examples:
  $ cnv fields create --label "Loyalty tier" --object-type contact --data-type string
  $ cnv fields create --label "Lifetime value (EUR)" --object-type CONTACT --data-type NUMBER --key ltvEur
  $ cnv fields create --label "Loyalty tier" --object-type contact --data-type string --key loyaltyTier --if-missing`,
  );
}

/** The request body from the flags; every problem the API would refuse for sure is caught here. */
export function createBody(opts: ValuesOf<typeof options>): CreateFieldBody {
  const label = opts.label?.trim() ?? '';
  if (label === '') throw new UsageError("--label: required (the field's display name)");
  if (opts.objectType === undefined)
    throw new UsageError(`--object-type: required, one of ${FIELD_OBJECT_TYPES.join(', ')}`);
  if (opts.dataType === undefined) throw new UsageError(`--data-type: required, one of ${DATA_TYPES.join(', ')}`);
  const body: CreateFieldBody = { label, objectType: opts.objectType, dataType: opts.dataType };
  if (opts.key !== undefined) {
    const key = opts.key.trim();
    if (!FIELD_KEY_RE.test(key))
      throw new UsageError(`--key: only letters, digits and underscores are allowed, got "${opts.key}"`);
    body.key = key;
  }
  return body;
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const body = createBody(opts);
  const http = await ctx.http();
  if (opts.ifMissing) {
    const existing = await existingField(body, (objectType) =>
      allFieldPages(http, { objectType, limit: 1000 }, ctx.signal),
    );
    if (existing) {
      ctx.info(`field "${existing.key}" exists already as asked (--if-missing): nothing created`);
      return { kind: 'record', data: existing };
    }
  }
  try {
    const field = await http.call(ENDPOINTS.createField, { body, signal: ctx.signal });
    return { kind: 'record', data: field };
  } catch (err) {
    throw await keyTaken(err, body, (objectType) => allFieldPages(http, { objectType, limit: 1000 }, ctx.signal));
  }
}

/** The key the API says is taken, from its message (`A field with key "employees" already exists`). */
const TAKEN_KEY = /key "([^"]+)"/;

/**
 * A duplicate key (400 invalid_field, api-spec "Create field") named with the field that holds
 * it, which may be of another object type (a COMPANY field `employees` takes the key a CONTACT
 * field labelled "Employees" would get), and `--key` to pick another. The field list is read
 * only for this; when it cannot be, the API's error stands with the same hint.
 */
async function keyTaken(
  err: unknown,
  body: CreateFieldBody,
  pages: (objectType: string) => AsyncIterable<FieldDefinition[]>,
): Promise<unknown> {
  if (!(err instanceof ApiError) || err.code !== 'invalid_field' || err.status !== 400) return err;
  const key = TAKEN_KEY.exec(err.message)?.[1] ?? body.key;
  if (key === undefined) return err;
  const other = `${key}_${body.objectType.toLowerCase()}`;
  const hint =
    body.key === undefined
      ? `the key was derived from the label; give this field another with --key (e.g. --key ${other})`
      : `give this field another key with --key (e.g. --key ${other})`;
  let holder: FieldDefinition | undefined;
  try {
    for (const objectType of new Set([body.objectType, 'CONTACT', 'COMPANY'])) {
      for await (const page of pages(objectType)) holder ??= page.find((f) => f.key === key);
      if (holder) break;
    }
  } catch {
    // Only for the message: the API's answer says enough without it.
  }
  const held = holder
    ? `: the ${holder.objectType} field "${holder.label}" (${holder.dataType}) holds it, and keys are unique across object types`
    : '';
  return new ApiError(err.status, err.code, `${err.message}${held}`, hint);
}
