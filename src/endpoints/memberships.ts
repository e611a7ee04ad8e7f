import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf, type Endpoint } from './endpoints.js';

// Shared by static audiences and custom campaigns: the add, batch-add answers are the same.

const addResultSchema = z.looseObject({ added: z.boolean(), cnvContactId: z.string() });
export type AddContactResult = z.output<typeof addResultSchema>;

/** One entry of `data.results`: `{ added: true, cnvContactId }` or `{ added: false, error, message }` (other members kept). */
export type BatchItemResult =
  | { added: true; cnvContactId: string; [member: string]: unknown }
  | { added: false; error: string; message: string; [member: string]: unknown };

// A batch answer holds up to 1,000 results: each is checked with a plain predicate (the shape of
// BatchItemResult) rather than a schema union, which cost ~3 µs a result, in one check of the
// whole array.
const isBatchItem = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (r.added === true) return typeof r.cnvContactId === 'string';
  return r.added === false && typeof r.error === 'string' && (r.message === undefined || typeof r.message === 'string');
};
const batchResultSchema = z.looseObject({
  results: z.custom<BatchItemResult[]>((v) => Array.isArray(v) && v.every(isBatchItem), {
    message: 'expected an array of { added: true, cnvContactId } or { added: false, error, message }',
  }),
});

/** The spec's bound on one batch add request (the same for audiences and campaigns). */
export const MAX_BATCH_CONTACTS = ENDPOINTS.batchAddToAudience.items.max;

/** An add endpoint with one contact. Adding a member again changes nothing, so it is retried. */
export async function addContactAt(http: HttpClient, endpoint: Endpoint, params: Record<string, string>, contact: ContactIdentifier, signal?: AbortSignal) {
  const res = await http.request({ method: endpoint.method, path: pathOf(endpoint, params), body: contact, data: addResultSchema, idempotency: idempotencyOf(endpoint), signal });
  return res.data;
}

/** The batch add request (what a --dry-run shows and batchAddContactsAt sends). */
export function batchAddRequest(endpoint: Endpoint, params: Record<string, string>, contacts: ContactIdentifier[]) {
  return { method: endpoint.method, path: pathOf(endpoint, params), body: { contacts } };
}

/** A batch add endpoint with 1..1000 contacts; one result per contact, in order. */
export async function batchAddContactsAt(http: HttpClient, endpoint: Endpoint, params: Record<string, string>, contacts: ContactIdentifier[], signal?: AbortSignal) {
  const res = await http.request({ ...batchAddRequest(endpoint, params, contacts), data: batchResultSchema, idempotency: idempotencyOf(endpoint), signal });
  return res.data.results.map((r) => (r.added || typeof r.message === 'string' ? r : { ...r, message: '' }));
}
