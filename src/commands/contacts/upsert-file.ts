import { z } from 'zod';
import { upsertContact, type UpsertContactBody } from '../../api/contacts.js';
import type { Prepared } from '../../batch/file-run.js';
import { runFileBatch } from '../../batch/file-run.js';
import { batchRunOptions } from '../../batch/options.js';
import { perRowSender } from '../../batch/per-row.js';
import { rowBody } from '../../batch/row-body.js';
import { blank, checkRow, identifierColumns } from '../../batch/row-check.js';
import { emailSchema, uuidSchema } from '../../api/identifiers.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { resolveFieldFlags, type FlagFields } from './field-flags.js';
import { cellMismatch, FILE_FIELD_OBJECT_TYPES, fieldCellTyper } from './file-field-cells.js';
import { readFieldDefinitions } from '../../records/field-cache.js';
import type { UpsertOptions } from './upsert.js';
import { spellingsOf } from '../../io/column-names.js';
import type { InputRow } from '../../io/input-rows.js';
import type { CommandResult } from '../../io/render.js';

// `contacts upsert --file`: one request per row (the API has no batch upsert of contacts).

export const UPSERT_FILE_DEFAULTS = { concurrency: 16, maxChunkSize: 1 };
const SETTABLE = ['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS'] as const;
const KNOWN = ['email', 'cnvContactId', 'subscriptionStatus', 'fields', 'companyFields', 'updateOnly'];
const TEXT = ['email', 'cnvContactId', 'subscriptionStatus'];
const CODES: Record<string, string> = { email: 'invalid_email', subscriptionStatus: 'invalid_subscription_status', fields: 'invalid_field', companyFields: 'invalid_field' };

const fieldMap = z.record(z.string(), z.unknown(), { message: 'expected an object of field key to value' });

const rowSchema = z
  .looseObject({
    email: z.preprocess(blank, emailSchema.optional()),
    cnvContactId: z.preprocess(blank, uuidSchema.optional()),
    subscriptionStatus: z.preprocess(
      (v) => (typeof blank(v) === 'string' ? String(blank(v)).toUpperCase() : blank(v)),
      z.enum(SETTABLE, { message: `expected one of ${SETTABLE.join(', ')}` }).optional(),
    ),
    fields: fieldMap.optional(),
    companyFields: fieldMap.optional(),
    updateOnly: z.boolean({ message: 'expected true or false' }).optional(),
  })
  .refine((b) => b.email !== undefined || b.cnvContactId !== undefined, { message: `no identifier: give ${spellingsOf(['email', 'cnvContactId'])}, in any case` });

/** Flags that stand for every row in file mode (a row's own values win). */
function defaultsFrom(opts: UpsertOptions, flagFields: FlagFields): Record<string, unknown> {
  const defaults: Record<string, unknown> = Object.fromEntries(opts.set ?? []);
  if (opts.status !== undefined) defaults.subscriptionStatus = opts.status;
  if (opts.updateOnly) defaults.updateOnly = true;
  if (flagFields.fields) defaults.fields = flagFields.fields;
  if (flagFields.companyFields) defaults.companyFields = flagFields.companyFields;
  return defaults;
}

/** Validates one row as the endpoint would; the body is the flag defaults overlaid with the row. */
export function prepareUpsertRow(
  row: InputRow,
  defaults: Record<string, unknown>,
  nestedCell?: (parent: string, key: string, cell: string) => unknown,
): Prepared<UpsertContactBody> {
  const own = rowBody(row, { known: KNOWN, text: TEXT, nestedCell });
  const body: Record<string, unknown> = { ...defaults, ...own };
  for (const key of ['fields', 'companyFields']) {
    if (isObject(defaults[key]) && isObject(own[key])) body[key] = { ...defaults[key], ...own[key] };
  }
  const identifier = String(blank(body.cnvContactId) ?? blank(body.email) ?? '');
  const mismatch = cellMismatch(own);
  if (mismatch) return { identifier, invalid: { error: 'invalid_field', message: mismatch.message } };
  return checkRow(rowSchema, body, identifier, CODES) as Prepared<UpsertContactBody>;
}

export async function runUpsertFile(ctx: Context, opts: UpsertOptions & { file: string }): Promise<CommandResult> {
  for (const flag of ['email', 'contactId'] as const) {
    if (opts[flag] !== undefined) throw new UsageError(`--file: each row names its contact; drop --${flag === 'contactId' ? 'contact-id' : 'email'}`);
  }
  const defaults = defaultsFrom(opts, await resolveFieldFlags(ctx, opts));
  let nestedCell: ((parent: string, key: string, cell: string) => unknown) | undefined;
  return runFileBatch(ctx, {
    path: opts.file,
    job: { command: 'contacts upsert' },
    options: batchRunOptions(ctx, opts, UPSERT_FILE_DEFAULTS),
    // The definitions are read only for a CSV with `parent.key` columns: NDJSON and JSON rows carry their types.
    beforeFirstRow: async (row) => {
      if (!row.textual || !Object.keys(row.values ?? {}).some((column) => column.includes('.'))) return;
      const read = await readFieldDefinitions(ctx, FILE_FIELD_OBJECT_TYPES, { fallback: 'CSV field cells are sent as JSON when they parse, else as strings' });
      nestedCell = fieldCellTyper(read?.definitions);
    },
    prepare: (row) => prepareUpsertRow(row, defaults, nestedCell),
    identifierColumns: identifierColumns(defaults, ['email', 'cnvContactId']),
    send: perRowSender(async (body: UpsertContactBody, signal) => {
      const result = await upsertContact(await ctx.http(), body, signal);
      return { status: result.contactCreated ? 'created' : 'updated', id: result.cnvContactId };
    }),
    // Rows for the same contact apply in file order, even when sent concurrently.
    orderKey: (body) => [body.cnvContactId && `id:${body.cnvContactId.toLowerCase()}`, body.email && `email:${body.email.toLowerCase()}`].filter((k): k is string => !!k),
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
