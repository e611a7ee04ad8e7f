import { EmulatorError } from '../error-answer.js';
import { findContact } from '../contact-identifiers.js';
import { addEach, lookupById, readBatchContacts, requireIdentifiers, resolveContact } from '../membership.js';
import type { Audience } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** Static audience membership: add one, remove one (audience edit permission), batch add (gated). */
export function audienceRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.addToAudience, addContact);
  serve(router, ENDPOINTS.removeFromAudience, removeContact, { permission: 'audience:edit' });
  serve(router, ENDPOINTS.batchAddToAudience, batchAdd);
}

function audienceOf(store: BusinessStore, id: string): Audience {
  const audience = lookupById(store.audiences, id);
  if (!audience) throw new EmulatorError(404, 'audience_not_found', `No static audience ${id}`);
  return audience;
}

// `added: false` means the contact was a member already (nothing changed), like `removed: false`.
function addContact({ params, body, store }: ApiContext): RouteResult {
  const audience = audienceOf(store, params.audienceId);
  const contact = resolveContact(store, body);
  const added = !audience.memberIds.has(contact.id);
  if (added) {
    audience.memberIds.add(contact.id);
    audience.updatedAt = store.clock.now();
  }
  return { body: { data: { added, cnvContactId: contact.id } } };
}

// Success when the contact or the membership is already absent; cnvContactId is null when no contact matched.
function removeContact({ params, body, store }: ApiContext): RouteResult {
  const audience = audienceOf(store, params.audienceId);
  const contact = findContact(store, requireIdentifiers(body));
  if (!contact) return { body: { data: { removed: false, cnvContactId: null } } };
  const removed = audience.memberIds.delete(contact.id);
  if (removed) audience.updatedAt = store.clock.now();
  return { body: { data: { removed, cnvContactId: contact.id } } };
}

function batchAdd({ params, body, store }: ApiContext): RouteResult {
  const audience = audienceOf(store, params.audienceId);
  const results = addEach(store, readBatchContacts(body), (contact) => {
    audience.memberIds.add(contact.id);
  });
  if (results.some((r) => r.added)) audience.updatedAt = store.clock.now();
  return { body: { data: { results } } };
}
