import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { addContactAt, batchAddContactsAt } from './memberships.js';

/** The path of an audience's members (the batch add appends /batch). */
export const audienceContactsPath = (audienceId: string) => `/v2/audiences/${encodeURIComponent(audienceId)}/contacts`;

// cnvContactId may be null (or absent) when no contact matched: the spec only says removing is a success then.
const removeResultSchema = z.looseObject({ removed: z.boolean(), cnvContactId: z.string().nullable().optional() });
export type RemoveFromAudienceResult = z.output<typeof removeResultSchema>;

/** POST /v2/audiences/{id}/contacts. */
export function addToAudience(http: HttpClient, audienceId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  return addContactAt(http, audienceContactsPath(audienceId), contact, signal);
}

/** POST /v2/audiences/{id}/contacts/batch (gated). */
export function batchAddToAudience(http: HttpClient, audienceId: string, contacts: ContactIdentifier[], signal?: AbortSignal) {
  return batchAddContactsAt(http, audienceContactsPath(audienceId), contacts, signal);
}

/** DELETE /v2/audiences/{id}/contacts: removing twice leaves the same state, so it is retried. */
export async function removeFromAudience(http: HttpClient, audienceId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  const res = await http.request({
    method: 'DELETE', path: audienceContactsPath(audienceId), body: contact, data: removeResultSchema, idempotency: 'safe', signal,
  });
  return res.data;
}
