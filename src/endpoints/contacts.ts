import { z } from 'zod';
import { ownRecord } from '../json/own-record.js';
import { once } from '../lib/once.js';

/** A contact as GET /v2/contacts answers it (`data.contact`; absent or null when the spec's no-match answer is empty). */
export const contactAnswer = once(() =>
  z
    .looseObject({
      cnvContactId: z.string(),
      email: z.string().nullable().optional(),
      userId: z.string().nullable().optional(),
      subscriptionStatus: z.string(),
      // A field keyed `__proto__` stays a member (ownRecord: zod's record would drop it).
      fields: ownRecord().default({}),
      createdAt: z.string(),
      updatedAt: z.string(),
    })
    .nullable()
    .optional(),
);

/** `data` of POST /v2/contacts. */
export const upsertResult = once(() => z.looseObject({ cnvContactId: z.string(), contactCreated: z.boolean() }));

/** The subscription statuses POST /v2/contacts accepts (the client's checks and the emulator's model read this one list). */
export const SETTABLE_STATUSES = ['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];
/**
 * The spec's examples of statuses the system sets (the real list is open-ended): what an export
 * holds and the API refuses on upsert; the emulator seeds them.
 */
export const SYSTEM_STATUSES = ['BOUNCED', 'COMPLAINED'] as const;

/** The members of an upsert body cnv names and checks; any other member is sent as given (`--set`, a mapped column). */
export const UPSERT_BODY_KEYS = [
  'email',
  'cnvContactId',
  'subscriptionStatus',
  'fields',
  'companyFields',
  'updateOnly',
] as const;

/** The body of POST /v2/contacts: the members of UPSERT_BODY_KEYS, and any other as given. */
export interface UpsertContactBody {
  email?: string;
  cnvContactId?: string;
  subscriptionStatus?: string;
  fields?: Record<string, unknown>;
  companyFields?: Record<string, unknown>;
  updateOnly?: boolean;
  [extra: string]: unknown;
}

/** GET /v2/contacts looks a contact up by one of these (the API gives cnvContactId precedence). */
export type ContactQuery = { cnvContactId: string } | { email: string };
