import { EmulatorError, invalidRequest } from '../error-answer.js';
import { normalizeEmail } from '../contact-book.js';
import { DEMO_KEYS } from '../keys.js';
import type { Contact } from '../model.js';
import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { queryParam } from '../validate.js';
import { cloneJson } from '../../lib/exact-number.js';

/**
 * Core admin routes under /_emulator (no API key): faults, stats, state inspection,
 * contact deletion and re-seeding. Other admin route modules sit beside this one.
 */
export function adminRoutes(router: AdminRouter): void {
  router.add('GET', '/_emulator/info', info);
  router.add('GET', '/_emulator/faults', ({ faults }) => ok(faults.snapshot()));
  router.add('POST', '/_emulator/faults', ({ faults, body }) => ok(faults.configure(body)));
  router.add('DELETE', '/_emulator/faults', ({ faults }) => ok(faults.reset()));
  router.add('GET', '/_emulator/stats', ({ stats }) => ok(stats.snapshot()));
  router.add('POST', '/_emulator/stats/reset', ({ stats }) => {
    stats.reset();
    return ok(stats.snapshot());
  });
  router.add('GET', '/_emulator/state/contacts', stateContacts);
  router.add('GET', '/_emulator/state/events', stateEvents);
  router.add('POST', '/_emulator/contacts/:id/delete', deleteContact);
  router.add('POST', '/_emulator/clock', ({ store, body }) => {
    if (typeof body.stuck !== 'boolean') throw invalidRequest('stuck is required (true or false)');
    const at = store.stickClock(body.stuck);
    return ok({ stuck: at !== undefined, ...(at !== undefined ? { shows: at } : {}) });
  });
  router.add('POST', '/_emulator/reset', ({ store, rateLimiter }) => {
    store.reset();
    rateLimiter.reset();
    return ok({ reset: true });
  });
}

/** A 200 admin answer. Admin answers are bare JSON (no `data` envelope; they are not the API). */
export function ok(data: unknown): RouteResult {
  return { body: data };
}

/** The business named by `?business=` (default acme); 404 not_found when unknown. */
export function businessOf({ store, query }: AdminContext): BusinessStore {
  const id = queryParam(query, 'business') ?? 'acme';
  if (!store.hasBusiness(id)) throw new EmulatorError(404, 'not_found', `Unknown business ${id}`);
  return store.business(id);
}

function stateContacts(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const email = queryParam(ctx.query, 'email');
  const id = queryParam(ctx.query, 'id');
  const userId = queryParam(ctx.query, 'userId');
  // A filter looks the contacts up (bulk ones too); no filter lists the stored ones.
  const book = business.contacts;
  let list: Contact[];
  if (id !== undefined) list = [book.get(id)].filter((c): c is Contact => c !== undefined);
  else if (email !== undefined) list = book.allByEmail(email);
  else if (userId !== undefined) list = book.allByUserId(userId);
  else list = book.stored();
  if (email !== undefined) list = list.filter((c) => normalizeEmail(c.email) === normalizeEmail(email));
  if (userId !== undefined) list = list.filter((c) => c.userId === userId);
  // Most recently updated first, like the API's email lookup.
  list.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
  const contacts = list.map((c) => ({
    ...cloneJson(c),
    company: c.companyId ? cloneJson(business.companies.get(c.companyId) ?? null) : null,
  }));
  return ok(contacts);
}

function stateEvents(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const email = queryParam(ctx.query, 'email');
  const userId = queryParam(ctx.query, 'userId');
  const eventName = queryParam(ctx.query, 'event');
  const contactId = queryParam(ctx.query, 'contactId');
  const clientEventId = queryParam(ctx.query, 'clientEventId');
  const idsOf = (list: Contact[]) => new Set(list.map((c) => c.id));
  const byEmail = email !== undefined ? idsOf(business.contacts.allByEmail(email)) : undefined;
  const byUser = userId !== undefined ? idsOf(business.contacts.allByUserId(userId)) : undefined;
  const events = business.customEvents.filter(
    (e) =>
      (byEmail === undefined || byEmail.has(e.contactId)) &&
      (byUser === undefined || byUser.has(e.contactId)) &&
      (eventName === undefined || e.eventName === eventName) &&
      (contactId === undefined || e.contactId === contactId) &&
      (clientEventId === undefined || e.clientEventId === clientEventId),
  );
  return ok(cloneJson(events));
}

function deleteContact({ store, params }: AdminContext): RouteResult {
  for (const id of store.businessIds()) {
    if (store.business(id).contacts.delete(params.id))
      return ok({ deleted: true, cnvContactId: params.id, business: id });
  }
  throw new EmulatorError(404, 'contact_not_found', `No contact ${params.id}`);
}

function info({ store }: AdminContext): RouteResult {
  const businesses = store.businessIds().map((id) => {
    const b = store.business(id);
    return {
      id,
      name: b.name,
      contacts: b.contacts.size,
      customEvents: b.customEvents.length,
      fields: b.fields.list().length,
    };
  });
  return ok({ keys: { ...DEMO_KEYS }, businesses });
}
