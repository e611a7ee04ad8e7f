import { SYSTEM_STATUSES, UPSERT_BODY_KEYS, type UpsertContactBody } from '../endpoints/contacts.js';
import type { Prepared } from '../batch/file-run.js';
import type { ColumnResolver, ColumnRules } from '../batch/columns/column-resolver.js';
import { cellMismatch, shapeRow, type RowCells } from '../batch/row-body.js';
import { blank } from '../batch/row-check.js';
import { quoteInput, type InputRow } from '../input/input-rows.js';
import { EXTRA_COLUMN, FIXED_COLUMNS } from '../exporter/csv-layout.js';
import { checkUpsertRow } from './upsert-row.js';

// A row of a contacts file as an upsert body: how the file names its columns, and a row made a
// checked body (`contacts upsert --file` and `contacts sync`, through cmdutil/contact-upsert-file.ts).

const SYSTEM_MANAGED = new Set<string>(SYSTEM_STATUSES);
const READ_ONLY = "read-only: a column of cnv's contact export";

/**
 * How a contacts file names its columns: body keys, CONTACT fields and COMPANY fields by key or
 * label, and the export's own columns.
 */
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
