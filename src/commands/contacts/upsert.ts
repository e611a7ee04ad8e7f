import type { Command } from 'commander';
import { UPSERT_BODY_KEYS, type UpsertContactBody } from '../../endpoints/contacts.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { checkUpsertRow } from '../../contacts/upsert-row.js';
import { applySetPairs } from '../../cmdutil/body-flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { resolveFieldFlags, type FlagFields } from '../../cmdutil/contact-field-flags.js';
import { runUpsertFile } from '../../cmdutil/contact-upsert-file.js';
import { options, type UpsertOptions } from '../../cmdutil/contact-upsert-flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { fileRunDocument } from '../../cmdutil/run-documents.js';
const NAMED_BODY_KEYS = new Set<string>(UPSERT_BODY_KEYS);

export { options };

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { schema: ENDPOINTS.upsertContact.answer.schema(), note: "(the API's data)" },
    fileRunDocument('with --file'),
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
With --file, each row is a request body. Every column resolves, before anything is sent, to a
body key (email, cnvContactId or id, subscriptionStatus, updateOnly), a field by key or label
(city, "First name", fields.<key>, companyFields.<key>), a --map or --pass-column target, or is
left out (--ignore-column, --ignore-unknown-columns, the read-only columns of cnv's own export);
any other column refuses the file (exit 2), and the run prints where each column went. Field
cells are typed by the field's definition like --field values (a STRING keeps the cell's text,
a NUMBER every digit; a cell that does not fit makes its row invalid); NDJSON and JSON rows are
sent as they are. So an export edited in a spreadsheet imports back:
  cnv export contacts --out c.csv --no-state; (edit c.csv); cnv contacts upsert --file c.csv
--status, --field, --company-field, --update-only and --set then apply to every row (a row's
own values win). --dry-run prints each request body (--max-rows N: the first N rows). Rows
are checked locally (bad rows are "invalid", never sent), then sent one request each,
--concurrency at a time, under the shared rate limit; rows for the same contact keep their
file order. Report statuses: created, updated, failed, invalid, skipped. Exit 0, 6 (some
failed or invalid) or 7 (stopped; --resume-from-report sends what is missing). See
docs/batches.md.

--field and --company-field values are converted by the field's definition (GET /v2/fields,
cached 5 minutes in the config directory's cache/): --field city=10115 sends the string
"10115" to a STRING field, --field score=42 the number 42 to a NUMBER field, yes/no/true/false
to a BOOLEAN one; a value that does not fit is exit 2, nothing sent. The keys of every field
flag (-f and -F too) are checked against the definitions, as a file's columns are: a key no
field has, or a read-only field, is exit 2 naming the nearest key (--field ctiy=Oslo: nearest
city); so is a --set name that is, or is close to, a field's key or label (fields go with
--field). Definitions that cannot be read (a warning) leave keys unchecked and send --field
values as JSON when they parse, else as strings. -f/--raw-field always sends a string, -F/--typed-field JSON (as gh api's -F;
-F key=null clears a field); --company-raw-field and --company-typed-field likewise.
-f and -F mean what they mean in \`cnv api\` (string; JSON when it parses); --field, without a
short name, is the one that converts by the field's definition (\`cnv api\`'s --field is its -F).

Examples:
  $ cnv contacts upsert --email ada@example.com --status subscribed --field firstName=Ada --field score=42
  $ cnv contacts upsert --contact-id 7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f --email new@example.com --update-only
  $ cnv contacts upsert --email ada@example.com --set preserveExisting=true --field city=London
  $ cnv contacts upsert --email ada@example.com --field city=10115 --field vip=yes -f lastName=007 -F score=null
  $ cnv contacts upsert --file contacts.csv --report report.csv
  $ cnv contacts upsert --file hubspot.csv --map-file docs/maps/hubspot.map --dry-run --max-rows 3`,
  );
}

/** The flag each body member of a single upsert comes from: the row schema's verdict names it. */
const FLAG_OF: Record<string, string> = {
  cnvContactId: '--contact-id',
  email: '--email',
  subscriptionStatus: '--status',
  fields: '--field',
  companyFields: '--company-field',
};

/**
 * Builds the request body from the flags (fields already resolved) and checks it by the rules a
 * file's row is checked by (src/contacts/upsert-row.ts), its verdict worded for the flags.
 */
function upsertBody(opts: UpsertOptions, flagFields: FlagFields = {}): UpsertContactBody {
  const body: Record<string, unknown> = {};
  if (opts.contactId !== undefined) body.cnvContactId = opts.contactId;
  if (opts.email !== undefined) body.email = opts.email;
  if (opts.status !== undefined) body.subscriptionStatus = opts.status;
  if (flagFields.fields) body.fields = flagFields.fields;
  if (flagFields.companyFields) body.companyFields = flagFields.companyFields;
  if (opts.updateOnly) body.updateOnly = true;
  applySetPairs(body, opts.set, NAMED_BODY_KEYS);
  const checked = checkUpsertRow(body, '');
  if (!checked.invalid) return checked.payload;
  const { error, message } = checked.invalid;
  if (error === 'missing_identifier')
    throw new UsageError('identify the contact with --email or --contact-id', undefined, error);
  if (error === 'invalid_email')
    throw new UsageError(`--email: not a valid email address: "${opts.email}"`, undefined, error);
  // `key: why, got value`, as a row's report says it: the key becomes the flag that gave it.
  const key = /^(\w+): /.exec(message)?.[1];
  const flag = key && FLAG_OF[key];
  throw new UsageError(flag ? `${flag}: ${message.slice(key.length + 2)}` : message, undefined, error);
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  if (opts.file !== undefined) return runUpsertFile(ctx, { ...opts, file: opts.file });
  upsertBody(opts); // the identifiers are checked before the definitions are read
  const body = upsertBody(opts, await resolveFieldFlags(ctx, opts));
  // The spec: with both, cnvContactId finds the contact and email becomes its address.
  if (body.cnvContactId && body.email)
    ctx.warn(`--contact-id finds the contact; --email does not look it up but sets its address to ${body.email}`);
  const result = await (await ctx.http()).call(ENDPOINTS.upsertContact, { body, signal: ctx.signal });
  return { kind: 'record', data: result };
}
