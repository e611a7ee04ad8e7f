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
  basicUser: {
    ...contact(1, 'basic.user@example.com', 'basic-user', 'SUBSCRIBED', 1, { firstName: 'Basil' }),
    id: 'b0000000-0000-4000-8000-000000000001',
  },
} as const;

/** A contact id referenced by seeded events whose contact no longer exists. */
export const FIXTURE_DELETED_CONTACT_ID = 'a0000000-0000-4000-8000-0000000000de';

const event = (
  n: number,
  contactId: string,
  eventName: string,
  occurredAt: string,
  data: Record<string, unknown>,
): {
  eventId: string;
  clientEventId: string;
  contactId: string;
  eventName: string;
  occurredAt: string;
  createdAt: string;
  data: Record<string, unknown>;
} => ({
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
  adaPurchase: event(2, FIXTURE_CONTACTS.ada.id, 'purchase', '2024-12-11T10:00:00.000Z', {
    amount: 49.5,
    currency: 'EUR',
  }),
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
    fields: {
      planName: 'Pro',
      seats: 5,
      autoRenew: true,
      startDate: '2024-12-01',
      renewedAt: '2024-12-01T09:00:00.000Z',
      subscriber: 'user-ada',
    },
  },
  grace: {
    id: 'd0000000-0000-4000-8000-000000000002',
    clientDedupKey: 'sub-grace',
    fields: {
      planName: 'Team',
      seats: 12,
      autoRenew: false,
      subscriber: 'grace@example.com',
      parentSubscription: 'sub-ada',
    },
  },
} as const;

// --- Audiences, campaigns, workflows and forms -------------------------------------------------
// Ids use one 8-hex prefix per kind: c1 audiences, c2 campaign types, c3 campaign statuses,
// c4 campaigns, d1 workflows, f1 forms, f2 form fields. Timestamps are in November 2024.

const fixtureId = (prefix: string, n: number) => `${prefix}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const novemberDay = (day: number) => `2024-11-${String(day).padStart(2, '0')}T09:00:00.000Z`;

/** A fixture static audience; `memberIds` are seeded in this order. */
export interface FixtureAudience {
  id: string;
  name: string;
  memberIds: readonly string[];
  createdAt: string;
}

/** Static audiences of business "acme". */
export const FIXTURE_AUDIENCES = {
  /** "Newsletter": ada and grace are members. */
  newsletter: {
    id: fixtureId('c1', 1),
    name: 'Newsletter',
    memberIds: [FIXTURE_CONTACTS.ada.id, FIXTURE_CONTACTS.grace.id],
    createdAt: novemberDay(1),
  },
  /** "VIP customers": ada is a member. */
  vip: {
    id: fixtureId('c1', 2),
    name: 'VIP customers',
    memberIds: [FIXTURE_CONTACTS.ada.id],
    createdAt: novemberDay(2),
  },
  /** "Webinar follow-up": no members; tests add to it. */
  followUp: { id: fixtureId('c1', 3), name: 'Webinar follow-up', memberIds: [], createdAt: novemberDay(3) },
} as const satisfies Record<string, FixtureAudience>;

/** Static audiences of business "basic". */
export const FIXTURE_BASIC_AUDIENCES = {
  basicList: {
    id: fixtureId('c1', 101),
    name: 'Basic list',
    memberIds: [FIXTURE_BASIC_CONTACTS.basicUser.id],
    createdAt: novemberDay(1),
  },
} as const satisfies Record<string, FixtureAudience>;

/** A fixture campaign type with its member statuses in progression order. */
export interface FixtureCampaignType {
  id: string;
  name: string;
  systemType: string;
  statuses: ReadonlyArray<{ id: string; name: string; isSuccess: boolean }>;
}

/** Campaign types (both businesses). The status order is deliberately not alphabetical. */
export const FIXTURE_CAMPAIGN_TYPES = {
  webinar: {
    id: fixtureId('c2', 1),
    name: 'Webinar',
    systemType: 'CUSTOM',
    statuses: [
      { id: fixtureId('c3', 1), name: 'Invited', isSuccess: false },
      { id: fixtureId('c3', 2), name: 'Registered', isSuccess: false },
      { id: fixtureId('c3', 3), name: 'Attended', isSuccess: true },
      { id: fixtureId('c3', 4), name: 'No-show', isSuccess: false },
    ],
  },
  tradeShow: {
    id: fixtureId('c2', 2),
    name: 'Trade show',
    systemType: 'CUSTOM',
    statuses: [
      { id: fixtureId('c3', 5), name: 'Planned', isSuccess: false },
      { id: fixtureId('c3', 6), name: 'Visited booth', isSuccess: true },
      { id: fixtureId('c3', 7), name: 'Meeting held', isSuccess: true },
    ],
  },
} as const satisfies Record<string, FixtureCampaignType>;

/** A fixture custom campaign; members get the first status of the campaign's type. */
export interface FixtureCampaign {
  id: string;
  name: string;
  typeId: string;
  description: string;
  sfdcCampaignId: string | null;
  archived: boolean;
  memberIds: readonly string[];
  createdAt: string;
}

/** Custom campaigns of business "acme" (generated ones come after them in the list). */
export const FIXTURE_CAMPAIGNS = {
  /** Webinar type, ada is a member, has a CRM id. */
  springWebinar: {
    id: fixtureId('c4', 1),
    name: 'Spring product webinar',
    typeId: FIXTURE_CAMPAIGN_TYPES.webinar.id,
    description: 'Live demo of the spring release, with Q&A.',
    sfdcCampaignId: '701000000000001AAA',
    archived: false,
    memberIds: [FIXTURE_CONTACTS.ada.id],
    createdAt: novemberDay(4),
  },
  /** Trade show type, no members. */
  tradeShow: {
    id: fixtureId('c4', 2),
    name: 'Berlin trade show',
    typeId: FIXTURE_CAMPAIGN_TYPES.tradeShow.id,
    description: 'Booth B12, three days.',
    sfdcCampaignId: null,
    archived: false,
    memberIds: [],
    createdAt: novemberDay(5),
  },
  /** Archived: not listed, and 404 campaign_not_found on read and add. */
  archived: {
    id: fixtureId('c4', 3),
    name: 'Autumn webinar (archived)',
    typeId: FIXTURE_CAMPAIGN_TYPES.webinar.id,
    description: 'Over and archived.',
    sfdcCampaignId: null,
    archived: true,
    memberIds: [FIXTURE_CONTACTS.grace.id],
    createdAt: novemberDay(6),
  },
} as const satisfies Record<string, FixtureCampaign>;

/** Custom campaigns of business "basic". */
export const FIXTURE_BASIC_CAMPAIGNS = {
  basicLaunch: {
    id: fixtureId('c4', 101),
    name: 'Basic launch',
    typeId: FIXTURE_CAMPAIGN_TYPES.webinar.id,
    description: 'Launch webinar of business basic.',
    sfdcCampaignId: null,
    archived: false,
    memberIds: [],
    createdAt: novemberDay(4),
  },
} as const satisfies Record<string, FixtureCampaign>;

/** A fixture workflow. */
export interface FixtureWorkflow {
  id: string;
  name: string;
  apiTriggered: boolean;
  active: boolean;
  createdAt: string;
}

/** Workflows of business "acme". */
export const FIXTURE_WORKFLOWS = {
  /** API-triggered and active: a trigger answers `triggered: true`. */
  welcome: {
    id: fixtureId('d1', 1),
    name: 'Welcome series',
    apiTriggered: true,
    active: true,
    createdAt: novemberDay(7),
  },
  /** API-triggered and active. */
  reengage: {
    id: fixtureId('d1', 2),
    name: 'Re-engagement',
    apiTriggered: true,
    active: true,
    createdAt: novemberDay(8),
  },
  /** API-triggered but paused: a trigger answers `triggered: false` and records nothing. */
  paused: {
    id: fixtureId('d1', 3),
    name: 'Paused nurture',
    apiTriggered: true,
    active: false,
    createdAt: novemberDay(9),
  },
  /** Triggered by form submissions, not the API: 400 workflow_not_api_triggered. */
  formFollowUp: {
    id: fixtureId('d1', 4),
    name: 'Form follow-up',
    apiTriggered: false,
    active: true,
    createdAt: novemberDay(10),
  },
} as const satisfies Record<string, FixtureWorkflow>;

/** Workflows of business "basic". */
export const FIXTURE_BASIC_WORKFLOWS = {
  basicWelcome: {
    id: fixtureId('d1', 101),
    name: 'Basic welcome',
    apiTriggered: true,
    active: true,
    createdAt: novemberDay(7),
  },
} as const satisfies Record<string, FixtureWorkflow>;

/** The workspace every API key acts in; forms of any other workspace answer 404. */
export const FIXTURE_WORKSPACE_ID = 'main';

/** A fixture form field. */
interface FixtureFormField {
  fieldId: string;
  name: string;
  type: string;
  required: boolean;
  hidden: boolean;
  options?: ReadonlyArray<{ label: string; value: string }>;
}

/** A fixture form; only NATIVE, tracked, published, unarchived forms of the workspace are readable. */
export interface FixtureForm {
  id: string;
  name: string;
  workspaceId: string;
  kind: 'NATIVE' | 'EXTERNAL' | 'AD';
  tracked: boolean;
  published: boolean;
  archived: boolean;
  fields: readonly FixtureFormField[];
  submissionCount: number;
  lastSubmittedAt: string | null;
  createdAt: string;
}

const formField = (n: number, name: string, type: string, extra: Partial<FixtureFormField> = {}): FixtureFormField => ({
  fieldId: fixtureId('f2', n),
  name,
  type,
  required: false,
  hidden: false,
  ...extra,
});

const EMAIL_ONLY = [formField(90, 'Email', 'EMAIL', { required: true })];

const form = (n: number, name: string, extra: Partial<FixtureForm> = {}): FixtureForm => ({
  id: fixtureId('f1', n),
  name,
  workspaceId: FIXTURE_WORKSPACE_ID,
  kind: 'NATIVE',
  tracked: true,
  published: true,
  archived: false,
  fields: EMAIL_ONLY,
  submissionCount: 0,
  lastSubmittedAt: null,
  createdAt: novemberDay(11),
  ...extra,
});

/** Forms of business "acme": two readable ones, then one per reason for 404 form_not_found. */
export const FIXTURE_FORMS = {
  /** Readable; every field type the spec shows, plus GDPR_CONSENT, a type the spec does not list. */
  contactUs: form(1, 'Contact us', {
    submissionCount: 128,
    lastSubmittedAt: '2024-11-28T16:20:00.000Z',
    fields: [
      formField(1, 'Email', 'EMAIL', { required: true }),
      formField(2, 'Topic', 'DROPDOWN', {
        required: true,
        options: [
          { label: 'Sales', value: 'sales' },
          { label: 'Support', value: 'support' },
          { label: 'Press', value: 'press' },
        ],
      }),
      formField(3, 'Message', 'LONG_ANSWER'),
      formField(4, 'utm_source', 'HIDDEN', { hidden: true }),
      formField(5, 'Interests', 'MULTI_CHECKBOX', {
        options: [
          { label: 'Exports', value: 'exports' },
          { label: 'Workflows', value: 'workflows' },
          { label: 'Forms', value: 'forms' },
        ],
      }),
      formField(6, 'I agree to the privacy policy', 'GDPR_CONSENT', { required: true }),
    ],
  }),
  /** Readable; one EMAIL field, never submitted (lastSubmittedAt null). */
  newsletterSignup: form(2, 'Newsletter sign-up'),
  untracked: form(3, 'Untracked form', { tracked: false }),
  archived: form(4, 'Archived form', { archived: true }),
  neverPublished: form(5, 'Draft form', { published: false }),
  external: form(6, 'External (embedded third-party) form', { kind: 'EXTERNAL' }),
  ad: form(7, 'Lead ad form', { kind: 'AD' }),
  otherWorkspace: form(8, 'Form of another workspace', { workspaceId: 'other' }),
} as const satisfies Record<string, FixtureForm>;

/** Forms of business "basic". */
export const FIXTURE_BASIC_FORMS = {
  basicSignup: form(101, 'Basic sign-up'),
} as const satisfies Record<string, FixtureForm>;

/**
 * clientDedupKeys of business "acme"'s standard relationship targets (no API creates them;
 * `POST /_emulator/targets` adds more): a relationship to COMPANY, CAMPAIGN, OPPORTUNITY or
 * CAMPAIGN_MEMBER resolves by these keys.
 */
export const FIXTURE_TARGETS = {
  /** Ada's company ("Analytical Engines Ltd"). */
  company: { objectType: 'COMPANY', clientDedupKey: 'analytical-engines', id: `c${FIXTURE_CONTACTS.ada.id.slice(1)}` },
  campaign: { objectType: 'CAMPAIGN', clientDedupKey: 'spring-webinar', id: FIXTURE_CAMPAIGNS.springWebinar.id },
  opportunity: { objectType: 'OPPORTUNITY', clientDedupKey: 'opp-1001', id: fixtureId('e0', 1) },
  /** Ada's membership of the spring webinar. */
  campaignMember: { objectType: 'CAMPAIGN_MEMBER', clientDedupKey: 'spring-webinar-ada', id: fixtureId('e0', 2) },
} as const;
