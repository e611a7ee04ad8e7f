import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf } from './endpoints.js';
import { addContactAt, batchAddContactsAt, batchAddRequest } from './memberships.js';


// cnvContactId may be null (or absent) when no contact matched: the spec only says removing is a success then.
const removeResultSchema = z.looseObject({ removed: z.boolean(), cnvContactId: z.string().nullable().optional() });

/** POST /v2/audiences/{id}/contacts. */
export function addToAudience(http: HttpClient, audienceId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  return addContactAt(http, ENDPOINTS.addToAudience, { audienceId }, contact, signal);
}

/** The batch add request (what a --dry-run shows and batchAddToAudience sends). */
export function batchAddToAudienceRequest(audienceId: string, contacts: ContactIdentifier[]) {
  return batchAddRequest(ENDPOINTS.batchAddToAudience, { audienceId }, contacts);
}

/** POST /v2/audiences/{id}/contacts/batch (gated). */
export function batchAddToAudience(http: HttpClient, audienceId: string, contacts: ContactIdentifier[], signal?: AbortSignal) {
  return batchAddContactsAt(http, ENDPOINTS.batchAddToAudience, { audienceId }, contacts, signal);
}

/** DELETE /v2/audiences/{id}/contacts: removing twice leaves the same state, so it is retried. */
export async function removeFromAudience(http: HttpClient, audienceId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.removeFromAudience.method, path: pathOf(ENDPOINTS.removeFromAudience, { audienceId }), body: contact, data: removeResultSchema,
    idempotency: idempotencyOf(ENDPOINTS.removeFromAudience), signal,
  });
  return res.data;
}
