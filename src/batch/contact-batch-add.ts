import { z } from 'zod';
import type { BatchItemResult } from '../endpoints/memberships.js';
import { emailSchema, isPlausibleEmail, uuidSchema, type ContactIdentifier } from '../endpoints/identifiers.js';
import { ApiError, ResponseShapeError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { spellingsOf } from '../input/column-names.js';
import type { InputRow } from '../input/input-rows.js';
import type { ColumnResolver, ColumnRules } from './columns/column-resolver.js';
import type { Prepared } from './file-run.js';
import { shapeRow } from './row-body.js';
import { blank, checkRow } from './row-check.js';
import { isRefusal, type BatchSender, type ItemOutcome } from './types.js';

// Shared by `audience add --batch` and `campaigns add --batch`: rows name one contact each.

const IDENTIFIERS = ['cnvContactId', 'userId', 'email'] as const;
/** The columns that name a row's contact: a CSV needs one of them. */
export const IDENTIFIER_COLUMNS: readonly string[] = IDENTIFIERS;

/** A batch add file: only the identifier columns are used (the rest are named once as not used). */
export function batchAddColumns(endpoint: string): ColumnRules {
  return {
    endpoint,
    keys: IDENTIFIERS,
    identifiers: IDENTIFIERS,
    text: IDENTIFIERS,
    objects: [],
    identifiersOnly: true,
  };
}
const CODES: Record<string, string> = {
  cnvContactId: 'invalid_request',
  userId: 'invalid_request',
  email: 'invalid_email',
};

const identifierRowSchema = z
  .object({
    cnvContactId: z.preprocess(blank, uuidSchema.optional()),
    userId: z.preprocess(blank, z.string({ message: 'expected a string' }).optional()),
    email: z.preprocess(blank, emailSchema.optional()),
  })
  .refine((row) => row.cnvContactId !== undefined || row.userId !== undefined || row.email !== undefined, {
    message: `no identifier: give ${spellingsOf(['email', 'cnvContactId', 'userId'])}, in any case`,
  });

/**
 * A row's contact, checked as the endpoint checks it. Columns email, cnvContactId and userId
 * (any case); other columns are not used. Only the identifier that takes precedence is sent
 * (cnvContactId, then userId, then email): the batch endpoints take one identifier per item.
 */
export function prepareIdentifierRow(row: InputRow, columns: ColumnResolver): Prepared<ContactIdentifier> {
  const { body, note } = shapeRow(row, columns);
  const fast = validIdentifier(body);
  if (fast) return note === undefined ? fast : { ...fast, note };
  const raw = IDENTIFIERS.map((k) => blank(body[k])).find((v) => v !== undefined);
  const checked = checkRow(identifierRowSchema, body, raw === undefined ? '' : String(raw), CODES);
  if (checked.invalid) return checked;
  const id = checked.payload;
  if (id.cnvContactId !== undefined) return { identifier: id.cnvContactId, payload: { cnvContactId: id.cnvContactId } };
  if (id.userId !== undefined) return { identifier: id.userId, payload: { userId: id.userId }, note };
  return { identifier: id.email!, payload: { email: id.email }, note };
}

/**
 * Sends a chunk to a batch add endpoint. Item errors are `failed` rows; a 400 for the whole
 * chunk fails its rows and the run goes on; anything else (403, 404 of the audience or
 * campaign, transient failures) stops the run.
 */
export function batchAddSender(
  client: () => Promise<HttpClient>,
  add: (http: HttpClient, contacts: ContactIdentifier[], signal: AbortSignal) => Promise<BatchItemResult[]>,
): BatchSender<ContactIdentifier> {
  return async (items, signal) => {
    const http = await client();
    let results: BatchItemResult[];
    try {
      results = await add(
        http,
        items.map((i) => i.payload),
        signal,
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 400)
        return items.map(() => ({ status: 'failed', error: err.code, message: err.message }));
      throw err;
    }
    if (results.length !== items.length) {
      throw new ResponseShapeError(`the batch answer has ${results.length} results for ${items.length} contacts`);
    }
    return results.map((r): ItemOutcome =>
      r.added
        ? { status: 'added', id: r.cnvContactId }
        : { status: 'failed', error: r.error, message: r.message, refusal: isRefusal(r.error) },
    );
  };
}

const GUID = z.regexes.guid;

/**
 * The common case without the schema: every identifier given is a string the schema accepts
 * (the same checks as uuidSchema and emailSchema), so the answer is the one checkRow would
 * give. Anything else (no identifier, a bad or non-string value) returns undefined and takes
 * the schema's path, with its messages.
 */
function validIdentifier(
  body: Record<string, unknown>,
): { identifier: string; payload: ContactIdentifier } | undefined {
  const cnvContactId = blank(body.cnvContactId);
  const userId = blank(body.userId);
  const email = blank(body.email);
  if (cnvContactId !== undefined && (typeof cnvContactId !== 'string' || !GUID.test(cnvContactId))) return undefined;
  if (userId !== undefined && typeof userId !== 'string') return undefined;
  if (email !== undefined && (typeof email !== 'string' || !isPlausibleEmail(email))) return undefined;
  if (cnvContactId !== undefined) return { identifier: cnvContactId, payload: { cnvContactId } };
  if (userId !== undefined) return { identifier: userId, payload: { userId } };
  if (email !== undefined) return { identifier: email, payload: { email } };
  return undefined;
}
