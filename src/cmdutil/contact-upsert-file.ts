import type { UpsertContactBody } from '../endpoints/contacts.js';
import { ENDPOINTS } from '../endpoints/endpoints.js';
import { requestOf } from '../http/endpoint.js';
import { runFileBatch, type FileBatchSpec } from '../batch/file-run.js';
import type { FieldsByParent } from '../batch/columns/field-match.js';
import { batchRunOptions, globalRunMode } from './batch-options.js';
import type { RunMode } from '../batch/batch-run-options.js';
import { perRowSender } from '../batch/per-row.js';
import { BlankCells, numberColumn, scanNumberCells } from '../batch/field-cells.js';
import { NumberConvention } from '../input/number-convention.js';
import { identifierColumns } from '../batch/row-check.js';
import { prepareUpsertRow, UPSERT_COLUMNS } from '../contacts/file-row.js';
import type { Context } from '../context.js';
import { resolveFieldFlags, type FlagFields } from './contact-field-flags.js';
import { readFieldDefinitions } from '../records/field-cache.js';
import { UPSERT_FILE_DEFAULTS, type FileRowOptions } from './contact-upsert-flags.js';
import type { CommandResult } from '../output/render.js';
import { batchDepsOf, fieldCacheDepsOf } from './context-deps.js';

// `contacts upsert --file`: one request per row (the API has no batch upsert of contacts).

/** Flags that stand for every row in file mode (a row's own values win). */
function defaultsFrom(opts: FileRowOptions, flagFields: FlagFields): Record<string, unknown> {
  const defaults: Record<string, unknown> = Object.fromEntries(opts.set ?? []);
  if (opts.status !== undefined) defaults.subscriptionStatus = opts.status;
  if (opts.updateOnly) defaults.updateOnly = true;
  if (flagFields.fields) defaults.fields = flagFields.fields;
  if (flagFields.companyFields) defaults.companyFields = flagFields.companyFields;
  return defaults;
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
  return runFileBatch(batchDepsOf(ctx), await upsertFileSpec(ctx, opts, 'contacts upsert', globalRunMode(ctx.globals)));
}

/**
 * A file of contact upserts as a file run: `contacts upsert --file`, and `contacts sync`, which
 * decides per row whether to send it.
 */
export async function upsertFileSpec(
  ctx: Context,
  opts: FileRowOptions,
  command: string,
  mode: RunMode,
): Promise<FileBatchSpec<UpsertContactBody>> {
  const defaults = defaultsFrom(opts, await resolveFieldFlags(ctx, opts));
  const options = batchRunOptions(opts, UPSERT_FILE_DEFAULTS, mode);
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
