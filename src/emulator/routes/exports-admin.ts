import { randomUUID } from 'node:crypto';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { bulkOf } from '../bulk.js';
import { EMAIL_EVENT_TYPES, type EmailEvent, type EmailEventType } from '../model.js';
import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import { blast, emailEventExtras } from '../seed/email-events.js';
import { isIsoDateTime, isPlainObject, isUuid } from '../validate.js';
import { businessOf, ok } from './admin.js';

/**
 * Admin routes for the exports: append email events (not an API operation), and the export
 * data's size. Deleting a contact is POST /_emulator/contacts/:id/delete (routes/admin.ts).
 */
export function exportAdminRoutes(router: AdminRouter): void {
  router.add('POST', '/_emulator/email-events', appendEmailEvents);
  router.add('GET', '/_emulator/exports/info', exportInfo);
}

/** Body: one event, or `{ events: [...] }`; each `{ eventType, contactId | email, occurredAt?, ... }`. */
function appendEmailEvents(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const items = Array.isArray(ctx.body.events) ? ctx.body.events : [ctx.body];
  const created: EmailEvent[] = items.map((item, i) => {
    if (!isPlainObject(item)) throw invalidRequest(`events[${i}] must be an object`);
    const type = EMAIL_EVENT_TYPES.find((t) => t === String(item.eventType ?? '').toUpperCase()) as
      EmailEventType | undefined;
    if (!type)
      throw new EmulatorError(
        400,
        'invalid_field',
        `events[${i}].eventType must be one of ${EMAIL_EVENT_TYPES.join(', ')}`,
      );
    let contactId = typeof item.contactId === 'string' ? item.contactId : undefined;
    if (contactId !== undefined && !isUuid(contactId)) throw invalidRequest(`events[${i}].contactId must be a UUID`);
    if (contactId === undefined && typeof item.email === 'string')
      contactId = business.contacts.findByEmail(item.email)?.id;
    if (contactId === undefined)
      throw new EmulatorError(404, 'contact_not_found', `events[${i}]: give contactId, or the email of a contact`);
    if (item.occurredAt !== undefined && (typeof item.occurredAt !== 'string' || !isIsoDateTime(item.occurredAt))) {
      throw invalidRequest(`events[${i}].occurredAt must be an ISO 8601 date-time with a zone`);
    }
    const n = business.emailEvents.length;
    const event: EmailEvent = {
      eventId: randomUUID(),
      contactId,
      occurredAt: item.occurredAt ? new Date(item.occurredAt as string).toISOString() : business.clock.now(),
      eventType: type,
      ...blast(n),
      sentEmailId: randomUUID(),
      isBot: item.isBot === true,
      ...emailEventExtras(type, n),
    };
    // Explicit members win (emailName: null, a link with a comma...).
    for (const key of ['emailName', 'link', 'topicIds', 'bounceType', 'errorMessage'] as const) {
      if (key in item) (event as unknown as Record<string, unknown>)[key] = item[key];
    }
    return event;
  });
  business.emailEvents.push(...created);
  return ok({ created });
}

function exportInfo(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const bulk = bulkOf(business)?.spec ?? { contacts: 0, events: 0 };
  return ok({
    contacts: business.contacts.size,
    customEvents: business.customEvents.length,
    emailEvents: business.emailEvents.length,
    bulk,
  });
}
