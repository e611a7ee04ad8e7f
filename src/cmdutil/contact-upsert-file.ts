import { UPSERT_BODY_KEYS, type UpsertContactBody } from '../endpoints/contacts.js';
import { ENDPOINTS } from '../endpoints/endpoints.js';
import { requestOf } from '../http/endpoint.js';
import { runFileBatch, type FileBatchSpec, type Prepared } from '../batch/file-run.js';
import type { ColumnResolver, ColumnRules } from '../batch/columns/column-resolver.js';
import type { FieldsByParent } from '../batch/columns/field-match.js';
import { batchRunOptions } from './batch-options.js';
import { perRowSender } from '../batch/per-row.js';
import { cellMismatch, shapeRow, type RowCells } from '../batch/row-body.js';
import { BlankCells, numberColumn, scanNumberCells } from '../batch/field-cells.js';
import { NumberConvention } from '../input/number-convention.js';
import { blank, identifierColumns } from '../batch/row-check.js';
import { checkUpsertRow } from '../contacts/upsert-row.js';
import type { Context } from '../context.js';
import { resolveFieldFlags, type FlagFields } from './contact-field-flags.js';
import { readFieldDefinitions } from '../records/field-cache.js';
import { UPSERT_FILE_DEFAULTS, type FileRowOptions } from './contact-upsert-flags.js';
import { quoteInput, type InputRow } from '../input/input-rows.js';
import type { CommandResult } from '../output/render.js';
import { EXTRA_COLUMN, FIXED_COLUMNS } from '../exporter/csv-layout.js';
import { batchDepsOf, fieldCacheDepsOf } from './context-deps.js';

// `contacts upsert --file`: one request per row (the API has no batch upsert of contacts).

// The spec's examples of statuses the system sets: what an export holds, and the API refuses.
const SYSTEM_MANAGED = new Set(['BOUNCED', 'COMPLAINED']);
const READ_ONLY = "read-only: a column of cnv's contact export";

/** How a contacts file names its columns: body keys, CONTACT fields and COMPANY fields by key or label, and the export's own columns. */
export const UPSERT_COLUMNS: ColumnRules = {
  endpoint: 'POST /v2/contacts',
  keys: UPSERT_BODY_KEYS,
  identifiers: ['cnvContactId', 'email'],
  text: ['email', 'cnvContactId', 'subscriptionStatus'],
  objects: ['fields', 'companyFields'],
  fieldParents: ['fields', 'companyFields'],
  notSent: Object.fromEntries(
    ['createdAt', 'updatedAt', 'sfdcLeadId', 'sfdcContactId', 'sfdcAccountId', EXTRA_COLUMN].map((c) => [c, READ_ONLY]),
  ),
  exportColumns: [...FIXED_COLUMNS.contacts, EXTRA_COLUMN],
};

/** Flags that stand for every row in file mode (a row's own values win). */
function defaultsFrom(opts: FileRowOptions, flagFields: FlagFields): Record<string, unknown> {
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
  columns: ColumnResolver,
  cells: RowCells = {},
): Prepared<UpsertContactBody> {
  const { body: own, note: idNote } = shapeRow(row, columns, cells);
  const body: Record<string, unknown> = { ...defaults, ...own };
  for (const key of ['fields', 'companyFields']) {
    if (isObject(defaults[key]) && isObject(own[key])) body[key] = { ...defaults[key], ...own[key] };
  }
  const identifier = String(blank(body.cnvContactId) ?? blank(body.email) ?? '');
  const mismatch = cellMismatch(own, ['fields', 'companyFields']);
  if (mismatch) return { identifier, invalid: { error: 'invalid_field', message: mismatch.message } };
  const status = blank(own.subscriptionStatus);
  let note = idNote;
  if (typeof status === 'string' && SYSTEM_MANAGED.has(status.toUpperCase())) {
    // An export's BOUNCED contact re-imported: the API sets it, a client cannot; leave it as it is.
    delete body.subscriptionStatus;
    note = [idNote, `subscriptionStatus ${quoteInput(status)} is set by the system, not through the API: not sent`]
      .filter(Boolean)
      .join('; ');
  }
  const checked = checkUpsertRow(body, identifier);
  return note !== undefined && !checked.invalid ? { ...checked, note } : checked;
}

/** The CONTACT and COMPANY definitions, as the column resolver takes them. */
export async function contactFieldDefinitions(
  ctx: Context,
  fresh: boolean,
  quiet = fresh,
): Promise<FieldsByParent | undefined> {
  const read = await readFieldDefinitions(fieldCacheDepsOf(ctx), ['CONTACT', 'COMPANY'], {
    refresh: fresh,
    quiet,
    fallback:
      'fields.KEY columns are sent as JSON when they parse, else as strings, and other columns cannot be matched to fields',
    transientFails: 'needed to match the columns of the file to fields',
  });
  if (!read) return undefined;
  return new Map([
    ['fields', read.definitions.get('CONTACT') ?? new Map()],
    ['companyFields', read.definitions.get('COMPANY') ?? new Map()],
  ]);
}

export async function runUpsertFile(ctx: Context, opts: FileRowOptions): Promise<CommandResult> {
  return runFileBatch(batchDepsOf(ctx), await upsertFileSpec(ctx, opts, 'contacts upsert'));
}

/** A file of contact upserts as a file run: `contacts upsert --file`, and `contacts sync`, which decides per row whether to send it. */
export async function upsertFileSpec(
  ctx: Context,
  opts: FileRowOptions,
  command: string,
  plan = false,
): Promise<FileBatchSpec<UpsertContactBody>> {
  const defaults = defaultsFrom(opts, await resolveFieldFlags(ctx, opts));
  // A plan sends nothing and prints itself, not the requests.
  const options = {
    ...batchRunOptions(opts, UPSERT_FILE_DEFAULTS, ctx.globals.dryRun || plan),
    ...(plan ? { printRequests: false } : {}),
  };
  const numbers = new NumberConvention(options.numbers);
  const blanks = new BlankCells('to clear a field, send null for it (NDJSON)');
  return {
    path: opts.file,
    job: { command },
    options,
    columns: {
      rules: UPSERT_COLUMNS,
      definitions: (fresh) => contactFieldDefinitions(ctx, fresh),
      identifierColumns: identifierColumns(defaults, ['email', 'cnvContactId']),
    },
    prepare: (row, columns) => {
      numbers.at(row.line);
      return prepareUpsertRow(row, defaults, columns, { coerce: { numbers }, blanks });
    },
    cells: {
      numbers,
      blanks,
      // NDJSON and JSON values are sent as they are: only CSV cells are typed.
      scanWanted: (input, columns) => input.format === 'csv' && numberColumn(columns),
      scan: (row, columns) => scanNumberCells(row, columns, numbers),
    },
    request: (items) => requestOf(ENDPOINTS.upsertContact, { body: items[0].payload }),
    send: perRowSender(async (body: UpsertContactBody, signal) => {
      const result = await (await ctx.http()).call(ENDPOINTS.upsertContact, { body, signal });
      return { status: result.contactCreated ? 'created' : 'updated', id: result.cnvContactId };
    }),
    // Rows for the same contact apply in file order, even when sent concurrently.
    orderKey: (body) =>
      [
        body.cnvContactId && `id:${body.cnvContactId.toLowerCase()}`,
        body.email && `email:${body.email.toLowerCase()}`,
      ].filter((k): k is string => !!k),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
