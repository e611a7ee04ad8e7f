import { bulkOf, type BulkRows } from './bulk.js';
import type { LogPosition } from './change-log.js';
import { SortedIndex, type OrderedSource } from './export-index.js';
import type { Contact, CustomEvent, EmailEvent, EmailEventType } from './model.js';
import type { BusinessStore } from './store.js';
import { setOwn } from '../lib/own-key.js';
import { exportedMemberNames } from '../endpoints/field-names.js';

export type Row = Record<string, unknown>;

/** Contact field key -> the label it is exported under (a label used twice gets its key appended). */
function contactFieldLabels(store: BusinessStore): Map<string, string> {
  return exportedMemberNames(store.fields.list('CONTACT'));
}

/**
 * The export row of a contact: CRM ids, and the set fields keyed by label. A value whose field
 * was deleted (no label) is left out; a label such as "__proto__" is a member like any other.
 */
function contactRow(c: Contact, labels: Map<string, string>, shown: Shown): Row {
  const fields: Row = {};
  for (const [key, value] of Object.entries(c.fields)) {
    const label = labels.get(key);
    if (value !== null && label !== undefined) setOwn(fields, label, value);
  }
  return exportRow(c, fields, shown);
}

/** How the server shows a timestamp (BusinessStore.shownTime). */
type Shown = (iso: string) => string;

function exportRow(c: Contact, fields: Row, shown: Shown): Row {
  return {
    id: c.id,
    sfdcLeadId: c.sfdcLeadId,
    sfdcContactId: c.sfdcContactId,
    sfdcAccountId: c.sfdcAccountId,
    email: c.email,
    subscriptionStatus: c.subscriptionStatus,
    createdAt: shown(c.createdAt),
    updatedAt: shown(c.updatedAt),
    fields,
  };
}

/**
 * contactRow(bulk.contact(i), labels), built directly: a bulk contact always has the same four
 * fields set and no CRM ids but the lead id, so the labels are looked up once per page, not
 * once per row (the same members, in the same order).
 */
function bulkContactRows(bulk: BulkRows, labels: Map<string, string>, shown: Shown): (i: number) => Row {
  const [first, last, city, score] = ['firstName', 'lastName', 'city', 'score'].map((key) => labels.get(key));
  // One of the four deleted (emulator admin): the general path leaves it out.
  if (first === undefined || last === undefined || city === undefined || score === undefined)
    return (i) => contactRow(bulk.contact(i), labels, shown);
  return (i) => {
    const c = bulk.contact(i);
    const f = c.fields;
    return exportRow(c, { [first]: f.firstName, [last]: f.lastName, [city]: f.city, [score]: f.score }, shown);
  };
}

/** The export row of a custom event; email and userId resolved now, null once the contact is gone. */
function customEventRow(e: CustomEvent, contact: Contact | undefined): Row {
  return {
    eventId: e.eventId,
    contactId: e.contactId,
    occurredAt: e.occurredAt,
    createdAt: e.createdAt,
    eventName: e.eventName,
    source: e.source,
    contactEmail: contact?.email ?? null,
    userId: contact?.userId ?? null,
    clientEventId: e.clientEventId,
    data: e.data,
  };
}

function emailEventRow(e: EmailEvent): Row {
  return {
    eventId: e.eventId,
    contactId: e.contactId,
    occurredAt: e.occurredAt,
    eventType: e.eventType,
    sourceType: e.sourceType,
    sourceId: e.sourceId,
    emailId: e.emailId,
    emailName: e.emailName,
    sentEmailId: e.sentEmailId,
    isBot: e.isBot,
    link: e.link,
    topicIds: e.topicIds,
    bounceType: e.bounceType,
    errorMessage: e.errorMessage,
  };
}

const timed = (at: string, id: string): LogPosition => [Date.parse(at), id];

interface Indexes {
  custom: SortedIndex<CustomEvent>;
  email: Map<EmailEventType, SortedIndex<EmailEvent>>;
}
const indexes = new WeakMap<BusinessStore, Indexes>();

function indexesOf(store: BusinessStore): Indexes {
  let found = indexes.get(store);
  if (!found) {
    found = { custom: new SortedIndex((e) => timed(e.occurredAt, e.eventId)), email: new Map() };
    indexes.set(store, found);
  }
  return found;
}

/**
 * Contacts in (updatedAt, id) order: the change log (every stored contact, written bulk ones
 * included, at their latest write), plus the bulk contacts still as computed, if any.
 */
export function contactSources(store: BusinessStore): OrderedSource<Row>[] {
  const labels = contactFieldLabels(store);
  const book = store.contacts;
  const log = book.changes;
  const shown: Shown = (iso) => store.shownTime(iso);
  const sources: OrderedSource<Row>[] = [
    {
      size: log.length,
      position: (i) => log.position(i),
      row: (i) => {
        const id = log.liveId(i);
        return id === undefined ? undefined : contactRow(book.get(id)!, labels, shown);
      },
    },
  ];
  const bulk = bulkOf(store);
  if (bulk && bulk.spec.contacts > 0) {
    const computed = bulkContactRows(bulk, labels, shown);
    // A bulk contact written since is exported at its write (the log), one deleted not at all.
    const row = book.anyComputedReplaced ? (i: number) => (book.isComputedLive(i) ? computed(i) : undefined) : computed;
    sources.push({ size: bulk.spec.contacts, position: (i) => bulk.contactPosition(i), row });
  }
  return sources;
}

/** Custom events in (occurredAt, eventId) order, and the latest occurredAt among them. */
export function customEventSources(store: BusinessStore): { sources: OrderedSource<Row>[]; lastMs: number } {
  const index = indexesOf(store).custom.sync(store.customEvents);
  const view = (e: CustomEvent) => customEventRow(e, store.contacts.get(e.contactId));
  const sources = [index.source(view)];
  let lastMs = index.lastMs;
  const bulk = bulkOf(store);
  if (bulk && bulk.spec.events > 0) {
    sources.push({
      size: bulk.spec.events,
      position: (i) => bulk.customEventPosition(i),
      row: (i) => view(bulk.customEvent(i)),
    });
    lastMs = Math.max(lastMs, bulk.customEventPosition(bulk.spec.events - 1)[0]);
  }
  return { sources, lastMs };
}

/** Email events of one type in (occurredAt, eventId) order. */
export function emailEventSources(store: BusinessStore, type: EmailEventType): OrderedSource<Row>[] {
  const byType = indexesOf(store).email;
  let index = byType.get(type);
  if (!index) {
    index = new SortedIndex(
      (e) => timed(e.occurredAt, e.eventId),
      (e) => e.eventType === type,
    );
    byType.set(type, index);
  }
  const sources = [index.sync(store.emailEvents).source(emailEventRow)];
  const bulk = bulkOf(store);
  if (bulk && bulk.emailCount(type) > 0) {
    sources.push({
      size: bulk.emailCount(type),
      position: (k) => bulk.emailPosition(type, k),
      row: (k) => emailEventRow(bulk.emailEvent(type, k)),
    });
  }
  return sources;
}
