import { ApiError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS } from './endpoints.js';

/**
 * GET /v2/contacts by cnvContactId or email (the API gives cnvContactId precedence). More than
 * the call: the spec does not show the no-match answer, so an empty one is mapped to the 404 a
 * no-match may also arrive as.
 */
export async function getContact(
  http: HttpClient,
  by: { cnvContactId?: string; email?: string },
  signal?: AbortSignal,
) {
  const query = by.cnvContactId ? { cnvContactId: by.cnvContactId } : { email: by.email! };
  const contact = await http.call(ENDPOINTS.getContact, { query, signal });
  if (!contact) {
    const which = by.cnvContactId ? `cnvContactId ${by.cnvContactId}` : `email ${by.email}`;
    throw new ApiError(404, 'contact_not_found', `no contact matches ${which}`);
  }
  return contact;
}
