import type { FieldMap, SubscriptionStatus } from '../model.js';

// Well-known records present in every seeded store ('demo' or a numeric seed; not 'none').
// Ids, emails and timestamps are constants; tests may rely on them.

/** A fixture contact as seeded. */
export interface FixtureContact {
  id: string;
  email: string;
  userId: string | null;
  subscriptionStatus: SubscriptionStatus;
  createdAt: string;
  updatedAt: string;
  fields: FieldMap;
  /** Company fields of the contact's company, if it has one. */
  companyFields?: FieldMap;
}

const contact = (
  n: number,
  email: string,
  userId: string | null,
  subscriptionStatus: SubscriptionStatus,
  day: number,
  fields: FieldMap,
  companyFields?: FieldMap,
): FixtureContact => {
  const ts = `2024-12-${String(day).padStart(2, '0')}T09:00:00.000Z`;
  return {
    id: `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    email,
    userId,
    subscriptionStatus,
    createdAt: ts,
    updatedAt: ts,
    fields,
    ...(companyFields ? { companyFields } : {}),
  };
};

/** Fixture contacts of business "acme" (keys DEMO_KEYS.full and DEMO_KEYS.limited). */
export const FIXTURE_CONTACTS = {
  /** ada@example.com, userId user-ada, SUBSCRIBED, with every contact field type set and a company. */
  ada: contact(
    1,
    'ada@example.com',
    'user-ada',
    'SUBSCRIBED',
    1,
    {
      firstName: 'Ada',
      lastName: 'Lovelace',
      city: 'London',
      score: 42,
      vip: true,
      birthday: '1815-12-10',
      lastSeenAt: '2024-11-30T18:45:00.000Z',
      leadScore: 90,
      createdBy: 'import',
    },
    { companyName: 'Analytical Engines Ltd', industry: 'Software', employees: 12, accountOwner: 'charles' },
  ),
  /** grace@example.com, userId user-grace, SUBSCRIBED. */
  grace: contact(2, 'grace@example.com', 'user-grace', 'SUBSCRIBED', 2, {
    firstName: 'Grace',
    lastName: 'Hopper',
    city: 'New York',
  }),
  /** shared@example.com, updated before sharedNewer. */
  sharedOlder: contact(3, 'shared@example.com', 'user-shared-old', 'UNSUBSCRIBED', 3, { firstName: 'Older' }),
  /** shared@example.com, most recently updated: the one a lookup by email returns. */
  sharedNewer: contact(4, 'shared@example.com', null, 'SUBSCRIBED', 4, { firstName: 'Newer' }),
  /** bounced@example.com, system-managed status BOUNCED. */
  bounced: contact(5, 'bounced@example.com', null, 'BOUNCED', 5, { firstName: 'Bounce' }),
  /** complained@example.com, system-managed status COMPLAINED. */
  complained: contact(6, 'complained@example.com', 'user-complained', 'COMPLAINED', 6, { firstName: 'Carla' }),
  /** unsubscribed@example.com, UNSUBSCRIBED, no userId. */
  unsubscribed: contact(7, 'unsubscribed@example.com', null, 'UNSUBSCRIBED', 7, {}),
  /** linus@example.com, no userId, NO_STATUS, no fields. */
  linus: contact(8, 'linus@example.com', null, 'NO_STATUS', 8, {}),
} as const;

/** Fixture contacts of business "basic" (key DEMO_KEYS.basic). */
export const FIXTURE_BASIC_CONTACTS = {
  /** basic.user@example.com in business "basic". */
  basicUser: { ...contact(1, 'basic.user@example.com', 'basic-user', 'SUBSCRIBED', 1, { firstName: 'Basil' }), id: 'b0000000-0000-4000-8000-000000000001' },
} as const;

/** A contact id referenced by seeded events whose contact no longer exists. */
export const FIXTURE_DELETED_CONTACT_ID = 'a0000000-0000-4000-8000-0000000000de';

/** A fixture custom event as seeded in business "acme". */
export interface FixtureEvent {
  eventId: string;
  clientEventId: string;
  contactId: string;
  eventName: string;
  occurredAt: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const event = (n: number, contactId: string, eventName: string, occurredAt: string, data: Record<string, unknown>): FixtureEvent => ({
  eventId: `e0000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  clientEventId: `fixture-event-${n}`,
  contactId,
  eventName,
  occurredAt,
  createdAt: occurredAt.replace('.000Z', '.250Z'),
  data,
});

/** Fixture custom events of business "acme". */
export const FIXTURE_EVENTS = {
  adaSignedUp: event(1, FIXTURE_CONTACTS.ada.id, 'signed_up', '2024-12-10T10:00:00.000Z', { plan: 'trial' }),
  adaPurchase: event(2, FIXTURE_CONTACTS.ada.id, 'purchase', '2024-12-11T10:00:00.000Z', { amount: 49.5, currency: 'EUR' }),
  graceLogin: event(3, FIXTURE_CONTACTS.grace.id, 'logged_in', '2024-12-12T10:00:00.000Z', {}),
  orphan: event(4, FIXTURE_DELETED_CONTACT_ID, 'page_viewed', '2024-12-13T10:00:00.000Z', { page: '/pricing' }),
} as const;

/** The demo custom object of business "acme" (records: FIXTURE_RECORDS). */
export const FIXTURE_CUSTOM_OBJECT = {
  id: 'c0000000-0000-4000-8000-000000000001',
  key: 'subscription',
  name: 'Subscription',
} as const;

/** Field keys of FIXTURE_CUSTOM_OBJECT: one of every data type, a read-only one and two relationships. */
export const SUBSCRIPTION_FIELDS = {
  plan: 'planName', // STRING
  seats: 'seats', // NUMBER
  autoRenew: 'autoRenew', // BOOLEAN
  startDate: 'startDate', // DATE
  renewedAt: 'renewedAt', // DATETIME
  syncedAt: 'syncedAt', // DATETIME, read-only
  subscriber: 'subscriber', // relationship to CONTACT (userId or email); reverse CONTACT field `subscriptions`
  parent: 'parentSubscription', // relationship to another Subscription (clientDedupKey); reverse `childSubscriptions`
} as const;

/** Fixture records of FIXTURE_CUSTOM_OBJECT, by clientDedupKey; both relationships to contacts resolve. */
export const FIXTURE_RECORDS = {
  ada: {
    id: 'd0000000-0000-4000-8000-000000000001',
    clientDedupKey: 'sub-ada',
    fields: { planName: 'Pro', seats: 5, autoRenew: true, startDate: '2024-12-01', renewedAt: '2024-12-01T09:00:00.000Z', subscriber: 'user-ada' },
  },
  grace: {
    id: 'd0000000-0000-4000-8000-000000000002',
    clientDedupKey: 'sub-grace',
    fields: { planName: 'Team', seats: 12, autoRenew: false, subscriber: 'grace@example.com', parentSubscription: 'sub-ada' },
  },
} as const;

/** Contact field keys of business "acme" that are read-only. */
export const READ_ONLY_CONTACT_FIELDS = ['leadScore', 'createdBy'] as const;
/** Company field key of business "acme" that is read-only. */
export const READ_ONLY_COMPANY_FIELD = 'accountOwner';
