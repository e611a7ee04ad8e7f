import { z } from 'zod';
import { ApiError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf } from './endpoints.js';

const contactSchema = z.looseObject({
  cnvContactId: z.string(),
  email: z.string().nullable().optional(),
  userId: z.string().nullable().optional(),
  subscriptionStatus: z.string(),
  fields: z.record(z.string(), z.unknown()).default({}),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const upsertResultSchema = z.looseObject({ cnvContactId: z.string(), contactCreated: z.boolean() });

export interface UpsertContactBody {
  email?: string;
  cnvContactId?: string;
  subscriptionStatus?: string;
  fields?: Record<string, unknown>;
  companyFields?: Record<string, unknown>;
  updateOnly?: boolean;
  [extra: string]: unknown;
}

/** The upsert request (what a --dry-run shows and upsertContact sends). */
export function upsertContactRequest(body: UpsertContactBody) {
  return { method: ENDPOINTS.upsertContact.method, path: ENDPOINTS.upsertContact.path, body };
}

/** POST /v2/contacts. An upsert converges to the same state when repeated, so it is retried. */
export async function upsertContact(http: HttpClient, body: UpsertContactBody, signal?: AbortSignal) {
  const res = await http.request({ ...upsertContactRequest(body), data: upsertResultSchema, idempotency: idempotencyOf(ENDPOINTS.upsertContact), signal });
  return res.data;
}

/** GET /v2/contacts by cnvContactId or email (the API gives cnvContactId precedence). */
export async function getContact(http: HttpClient, query: { cnvContactId?: string; email?: string }, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.getContact.method,
    path: ENDPOINTS.getContact.path,
    query: query.cnvContactId ? { cnvContactId: query.cnvContactId } : { email: query.email },
    data: z.looseObject({ contact: contactSchema.nullable().optional() }),
    idempotency: idempotencyOf(ENDPOINTS.getContact),
    signal,
  });
  // The spec does not show the no-match answer: a 404 arrives as an ApiError, an empty one is mapped here.
  if (!res.data.contact) {
    const by = query.cnvContactId ? `cnvContactId ${query.cnvContactId}` : `email ${query.email}`;
    throw new ApiError(404, 'contact_not_found', `no contact matches ${by}`);
  }
  return res.data.contact;
}
