import { randomUUID } from 'node:crypto';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import type { Contact } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import { settlePending } from '../relationships.js';
import type { BusinessStore } from '../store.js';
import { checkIdentifierFormats, contactNotFound, missingIdentifier, readIdentifier } from '../contact-identifiers.js';
import { isIsoDateTime, optionalBoolean, optionalObject } from '../validate.js';
import { cloneJson } from '../../lib/exact-number.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** POST /v2/events (track a custom event). */
export function eventRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.trackEvent, trackEvent);
}

function trackEvent({ body, store }: ApiContext): RouteResult {
  const eventName = typeof body.event === 'string' ? body.event.trim() : '';
  if (!eventName) throw invalidRequest('event is required and must be a non-empty string');
  const userId = readIdentifier(body, 'userId');
  const email = readIdentifier(body, 'email', 'invalid_email');
  const clientEventId = readIdentifier(body, 'clientEventId');
  const data = optionalObject(body, 'data') ?? {};
  const createContact = optionalBoolean(body, 'createContact') ?? false;
  const occurredAt = parseOccurredAt(body.occurredAt);
  if (userId === undefined && email === undefined) {
    throw missingIdentifier('Either userId or email is required');
  }
  checkIdentifierFormats(email, undefined);

  // Idempotent retry: the original event stands and nothing changes.
  const existing = clientEventId !== undefined ? store.customEventsByClientId.get(clientEventId) : undefined;
  if (existing) {
    return { body: { data: { cnvEventId: existing.eventId, cnvContactId: existing.contactId, duplicate: true } } };
  }

  const contact = resolveContact(store, userId, email, createContact);
  const createdAt = store.clock.now();
  const event = store.addCustomEvent({
    eventId: randomUUID(),
    contactId: contact.id,
    occurredAt: occurredAt ?? createdAt,
    createdAt,
    eventName,
    source: 'PUBLIC_API',
    clientEventId: clientEventId ?? randomUUID(),
    data: cloneJson(data),
  });
  return { body: { data: { cnvEventId: event.eventId, cnvContactId: contact.id } } };
}

/**
 * An email that matches a contact with another userId is conflicting_identifier, whether or not
 * the userId matched (the spec's rule reads unconditionally; a contact without userId does not
 * conflict). Then: userId first; else the most recently updated contact with the email; else
 * create (createContact) or 404.
 */
function resolveContact(
  store: BusinessStore,
  userId: string | undefined,
  email: string | undefined,
  create: boolean,
): Contact {
  const byEmail = email !== undefined ? store.contacts.findByEmail(email) : undefined;
  if (byEmail && userId !== undefined && byEmail.userId !== null && byEmail.userId !== userId) {
    throw new EmulatorError(
      400,
      'conflicting_identifier',
      `email ${email} belongs to a contact with a different userId`,
    );
  }
  const byUser = userId !== undefined ? store.contacts.findByUserId(userId) : undefined;
  if (byUser ?? byEmail) return (byUser ?? byEmail)!;
  if (!create) throw contactNotFound();
  if (email === undefined) {
    throw missingIdentifier('Creating a contact (createContact: true) requires an email');
  }
  const created = store.contacts.create({ email, userId: userId ?? null });
  // A contact that appears resolves the relationships waiting for its userId or email.
  settlePending(store, 'CONTACT', [created.userId, created.email]);
  return created;
}

/** Normalises occurredAt to ISO 8601 UTC with milliseconds; 400 invalid_request when malformed. */
function parseOccurredAt(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !isIsoDateTime(v)) {
    throw invalidRequest('occurredAt must be an ISO 8601 date-time with a time zone, e.g. 2025-03-01T12:00:00Z');
  }
  return new Date(v).toISOString();
}
