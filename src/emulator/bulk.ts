import type { LogPosition } from './change-log.js';
import type { ComputedContacts } from './computed-contacts.js';
import {
  EMAIL_EVENT_TYPES,
  type Contact,
  type CustomEvent,
  type EmailEvent,
  type EmailEventType,
  type SubscriptionStatus,
} from './model.js';
import { blast, emailEventExtras, numberedUuid } from './seed/email-events.js';
import { FIXTURE_CONTACTS } from './seed/fixtures.js';
import { CITIES, EVENT_NAMES, FIRST_NAMES, LAST_NAMES, PAGES } from './seed/names.js';
import type { BusinessStore } from './store.js';

/** Bulk rows are timed from here, before the fixtures and the demo data. */
const BULK_EPOCH_MS = Date.parse('2024-06-01T00:00:00.000Z');
const CONTACT_STEP_MS = 10;
const EVENT_STEP_MS = 50;
const CONTACT_TAG = 'f0000000';
const STATUSES: readonly SubscriptionStatus[] = [
  'SUBSCRIBED',
  'SUBSCRIBED',
  'UNSUBSCRIBED',
  'NO_STATUS',
  'SUBSCRIBED',
  'BOUNCED',
];
const FIXTURE_IDS = Object.values(FIXTURE_CONTACTS).map((c) => c.id);
const TYPES = EMAIL_EVENT_TYPES.length;

/** How many bulk rows to generate (`seedContacts`, `seedEvents`). */
interface BulkSpec {
  contacts: number;
  events: number;
}

// Bulk rows are timed a few ms apart, so most share their second with the row before: keep
// the formatted "YYYY-MM-DDTHH:MM:SS." of the last second (toISOString was a third of the
// emulator's time per export page).
let isoSecond = Number.NaN;
let isoPrefix = '';
const iso = (ms: number): string => {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
};

// The position and the row of bulk contact i both need its id: made once.
let lastIdIndex = -1;
let lastId = '';
const contactId = (i: number): string => {
  if (i !== lastIdIndex) {
    lastIdIndex = i;
    lastId = numberedUuid(CONTACT_TAG, i);
  }
  return lastId;
};

// Bulk contact i's email and userId, as lookups receive them (the email normalised).
const BULK_EMAIL = /^bulk\.(0|[1-9]\d{0,8})@example\.com$/;
const BULK_USER = /^bulk-user-(0|[1-9]\d{0,8})$/;
const bulkUserId = (i: number): string | null => (i % 3 === 0 ? `bulk-user-${i}` : null);

/**
 * Benchmark-sized data: nothing is stored, row i is computed from i when needed, so a million
 * rows cost no memory and no start-up time: `contacts` contacts, `events` custom events and
 * `events` email events spread over the nine types (global row g has type g mod 9). The bulk
 * contacts are the business's contacts (ComputedContacts: the contact book finds them, and
 * stores one once it is written); the events are seen by the exports.
 */
export class BulkRows implements ComputedContacts {
  constructor(readonly spec: BulkSpec) {}

  get count(): number {
    return this.spec.contacts;
  }

  contactPosition(i: number): LogPosition {
    return [BULK_EPOCH_MS + i * CONTACT_STEP_MS, contactId(i)];
  }

  contact(i: number): Contact {
    const at = iso(BULK_EPOCH_MS + i * CONTACT_STEP_MS);
    return {
      id: contactId(i),
      email: `bulk.${i}@example.com`,
      userId: bulkUserId(i),
      subscriptionStatus: STATUSES[i % STATUSES.length],
      fields: {
        firstName: FIRST_NAMES[i % FIRST_NAMES.length],
        lastName: LAST_NAMES[(i >> 3) % LAST_NAMES.length],
        city: CITIES[i % CITIES.length],
        score: i % 101,
      },
      companyId: null,
      sfdcLeadId: i % 7 === 0 ? `00Qbulk${String(i).padStart(11, '0')}` : null,
      sfdcContactId: null,
      sfdcAccountId: null,
      createdAt: at,
      updatedAt: at,
    };
  }

  indexOfId(id: string): number | undefined {
    if (!id.startsWith(`${CONTACT_TAG}-`)) return undefined;
    const i = this.inRange(Number.parseInt(id.slice(-12), 16));
    // Only the spelling numberedUuid writes (lower case) names the contact, as for stored ids.
    return i !== undefined && contactId(i) === id ? i : undefined;
  }

  indexOfEmail(normalizedEmail: string): number | undefined {
    const m = BULK_EMAIL.exec(normalizedEmail);
    return m ? this.inRange(Number(m[1])) : undefined;
  }

  indexOfUserId(userId: string): number | undefined {
    const m = BULK_USER.exec(userId);
    const i = m ? this.inRange(Number(m[1])) : undefined;
    return i !== undefined && bulkUserId(i) === userId ? i : undefined;
  }

  private inRange(i: number): number | undefined {
    return i < this.spec.contacts ? i : undefined;
  }

  customEventPosition(i: number): LogPosition {
    return [BULK_EPOCH_MS + i * EVENT_STEP_MS, numberedUuid('f1000000', i)];
  }

  customEvent(i: number): CustomEvent {
    const [ms, eventId] = this.customEventPosition(i);
    const name = EVENT_NAMES[i % EVENT_NAMES.length];
    return {
      eventId,
      contactId:
        this.spec.contacts > 0
          ? numberedUuid(CONTACT_TAG, i % this.spec.contacts)
          : FIXTURE_IDS[i % FIXTURE_IDS.length],
      occurredAt: iso(ms),
      createdAt: iso(ms + 1000 + (i % 997)),
      eventName: name,
      source: 'PUBLIC_API',
      clientEventId: `bulk-${i}`,
      data: name === 'page_viewed' ? { page: PAGES[i % PAGES.length] } : { n: i },
    };
  }

  /** Bulk email events of one type. */
  emailCount(type: EmailEventType): number {
    const t = EMAIL_EVENT_TYPES.indexOf(type);
    return this.spec.events > t ? Math.ceil((this.spec.events - t) / TYPES) : 0;
  }

  emailPosition(type: EmailEventType, k: number): LogPosition {
    const g = k * TYPES + EMAIL_EVENT_TYPES.indexOf(type);
    return [BULK_EPOCH_MS + g * EVENT_STEP_MS, numberedUuid('f2000000', g)];
  }

  emailEvent(type: EmailEventType, k: number): EmailEvent {
    const g = k * TYPES + EMAIL_EVENT_TYPES.indexOf(type);
    const [ms, eventId] = this.emailPosition(type, k);
    return {
      eventId,
      contactId:
        this.spec.contacts > 0
          ? numberedUuid(CONTACT_TAG, g % this.spec.contacts)
          : FIXTURE_IDS[g % FIXTURE_IDS.length],
      occurredAt: iso(ms),
      eventType: type,
      ...blast(k),
      sentEmailId: numberedUuid('f3000000', k),
      isBot: g % 23 === 0,
      ...emailEventExtras(type, g),
    };
  }
}

const attached = new WeakMap<BusinessStore, BulkRows>();

/**
 * Gives a business bulk rows, its bulk contacts to its contact book (kept across resets: they
 * are configuration, not data; a reset forgets their writes).
 */
export function attachBulk(business: BusinessStore, spec: BulkSpec): void {
  if (spec.contacts === 0 && spec.events === 0) return;
  const rows = new BulkRows(spec);
  attached.set(business, rows);
  if (spec.contacts > 0) business.contacts.useComputed(rows);
}

/** The bulk rows of a business, if it has any. */
export function bulkOf(business: BusinessStore): BulkRows | undefined {
  return attached.get(business);
}
