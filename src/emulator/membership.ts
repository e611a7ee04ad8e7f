import { ENDPOINTS } from '../endpoints/endpoints.js';
import { EmulatorError, invalidRequest } from './error-answer.js';
import { contactNotFound, findContact, readIdentifiers, type ContactIdentifiers } from './contact-identifiers.js';
import type { Contact } from './model.js';
import type { BusinessStore } from './store.js';
import { isPlainObject, isUuid } from './validate.js';

// Shared by the audience and campaign membership routes.

/** The spec's bound on a batch add. */
const MAX_BATCH_CONTACTS = ENDPOINTS.batchAddToAudience.items.max;

/** Path ids that are not UUIDs cannot name anything: they answer the resource's 404. */
export function lookupById<T>(map: Map<string, T>, id: string): T | undefined {
  return isUuid(id) ? map.get(id.toLowerCase()) : undefined;
}

/** Identifiers of one contact from a body; at least one is required (400 missing_identifier). */
export function requireIdentifiers(body: Record<string, unknown>): ContactIdentifiers {
  const ids = readIdentifiers(body);
  if (ids.cnvContactId === undefined && ids.userId === undefined && ids.email === undefined) {
    throw new EmulatorError(400, 'missing_identifier', 'One of email, cnvContactId or userId is required');
  }
  return ids;
}

/** The contact a single-contact body names (resolution order cnvContactId, userId, email), or 404. */
export function resolveContact(store: BusinessStore, body: Record<string, unknown>): Contact {
  const contact = findContact(store, requireIdentifiers(body));
  if (!contact) throw contactNotFound();
  return contact;
}

/** `contacts` of a batch body: an array of 1..1000 items, else 400 invalid_request. */
export function readBatchContacts(body: Record<string, unknown>): unknown[] {
  const list = body.contacts;
  if (!Array.isArray(list)) throw invalidRequest('contacts must be an array of 1 to 1000 items');
  if (list.length < 1 || list.length > MAX_BATCH_CONTACTS) {
    throw invalidRequest(`contacts must hold 1 to ${MAX_BATCH_CONTACTS} items, got ${list.length}`);
  }
  return list;
}

/** Processes each item independently: a bad or unmatched item fails alone, the rest still apply. */
export function addEach(
  store: BusinessStore,
  items: unknown[],
  add: (contact: Contact) => void,
): ({ added: true; cnvContactId: string } | { added: false; error: string; message: string })[] {
  return items.map((item) => {
    try {
      if (!isPlainObject(item)) throw invalidRequest('each item must be an object with email, cnvContactId or userId');
      const contact = resolveContact(store, item);
      add(contact);
      return { added: true, cnvContactId: contact.id };
    } catch (err) {
      if (!(err instanceof EmulatorError)) throw err;
      return { added: false, error: err.code, message: err.message };
    }
  });
}
