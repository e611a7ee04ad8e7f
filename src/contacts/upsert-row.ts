import { z } from 'zod';
import { SETTABLE_STATUSES, UPSERT_BODY_KEYS, type UpsertContactBody } from '../endpoints/contacts.js';
import type { Prepared } from '../batch/file-run.js';
import { blank, checkRow } from '../batch/row-check.js';
import { emailSchema, isPlausibleEmail, uuidSchema } from '../endpoints/identifiers.js';
import { spellingsOf } from '../input/column-names.js';
import { ownRecord } from '../json/own-record.js';

const CODES: Record<string, string> = {
  email: 'invalid_email',
  subscriptionStatus: 'invalid_subscription_status',
  fields: 'invalid_field',
  companyFields: 'invalid_field',
};

const fieldMap = ownRecord('expected an object of field key to value');
const statusOf = (v: unknown) => (typeof blank(v) === 'string' ? String(blank(v)).toUpperCase() : blank(v));

/** The body of one contact upsert, as a row of a file gives it. */
export const upsertRowSchema = z
  .looseObject({
    email: z.preprocess(blank, emailSchema.optional()),
    cnvContactId: z.preprocess(blank, uuidSchema.optional()),
    subscriptionStatus: z.preprocess(
      statusOf,
      z.enum(SETTABLE_STATUSES, { message: `expected one of ${SETTABLE_STATUSES.join(', ')}` }).optional(),
    ),
    fields: fieldMap.optional(),
    companyFields: fieldMap.optional(),
    updateOnly: z.boolean({ message: 'expected true or false' }).optional(),
  })
  .refine((b) => b.email !== undefined || b.cnvContactId !== undefined, {
    message: `no identifier: give ${spellingsOf(['email', 'cnvContactId'])}, in any case`,
  });

/**
 * Checks one row's upsert body: the payload, or the row's error. The schema above is the rule;
 * a row it surely accepts takes a path without it, with the same payload (zod's checks cost
 * ~10 µs a row, a tenth of a 20,000-row `contacts sync`). Anything unusual goes to zod, for its
 * verdict and its words.
 */
export function checkUpsertRow(
  body: Record<string, unknown>,
  identifier: string,
): Prepared<UpsertContactBody> & { done?: undefined } {
  const payload = plainValidRow(body);
  if (payload) return { identifier, payload: payload as UpsertContactBody };
  return checkRow(upsertRowSchema, body, identifier, CODES) as Prepared<UpsertContactBody> & { done?: undefined };
}

const SHAPE = UPSERT_BODY_KEYS;
const STATUSES = new Set<string>(SETTABLE_STATUSES);

/** The payload the schema gives a body it surely accepts (members in its order, then the rest), else undefined. */
export function plainValidRow(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const key of SHAPE) {
    const value = plainMember(key, body[key]);
    if (value === INVALID) return undefined;
    if (value !== undefined) out[key] = value;
  }
  if (out.email === undefined && out.cnvContactId === undefined) return undefined;
  for (const key in body) {
    if (!Object.hasOwn(body, key) || (SHAPE as readonly string[]).includes(key)) continue;
    if (body[key] !== undefined) out[key] = body[key];
  }
  return out;
}

const INVALID = Symbol('invalid');

function plainMember(key: (typeof SHAPE)[number], value: unknown): unknown {
  switch (key) {
    case 'email': {
      const text = blank(value);
      return text === undefined ? undefined : typeof text === 'string' && isPlausibleEmail(text) ? text : INVALID;
    }
    case 'cnvContactId': {
      const text = blank(value);
      return text === undefined
        ? undefined
        : typeof text === 'string' && uuidSchema.safeParse(text).success
          ? text
          : INVALID;
    }
    case 'subscriptionStatus': {
      const status = statusOf(value);
      return status === undefined ? undefined : typeof status === 'string' && STATUSES.has(status) ? status : INVALID;
    }
    case 'fields':
    case 'companyFields':
      return value === undefined ? undefined : isPlainRecord(value) ? { ...value } : INVALID;
    case 'updateOnly':
      return value === undefined || typeof value === 'boolean' ? value : INVALID;
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0;
}
