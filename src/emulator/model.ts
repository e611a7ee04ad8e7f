import { EMAIL_EVENT_TYPES, type EmailEventType } from '../endpoints/email-event-types.js';
import { DATA_TYPES, type DataType } from '../endpoints/fields.js';
import type { ExactNumber } from '../lib/exact-number.js';
import { SETTABLE_STATUSES, SYSTEM_STATUSES, type SettableStatus } from '../endpoints/contacts.js';
export {
  DATA_TYPES,
  type DataType,
  EMAIL_EVENT_TYPES,
  type EmailEventType,
  SETTABLE_STATUSES,
  SYSTEM_STATUSES,
  type SettableStatus,
};
// Resource types held by the store. Shapes follow the spec's field tables; fields the spec
// does not show (archived flags, workspace ids, memberships...) are emulator bookkeeping.

export type SubscriptionStatus = SettableStatus | (typeof SYSTEM_STATUSES)[number];

/** Object types that own field definitions. */
export const FIELD_OBJECT_TYPES = ['CONTACT', 'COMPANY', 'OPPORTUNITY', 'CAMPAIGN_MEMBER'] as const;
/** Object types allowed on relationship sides. */
export const RELATIONSHIP_OBJECT_TYPES = [...FIELD_OBJECT_TYPES, 'CAMPAIGN', 'CUSTOM_OBJECT'] as const;
export type ObjectType = (typeof RELATIONSHIP_OBJECT_TYPES)[number];

/** A stored field value; null means "unset". */
/** A stored field value; a number a double cannot hold keeps its digits (ExactNumber). */
export type FieldValue = string | number | ExactNumber | boolean | null;
export type FieldMap = Record<string, FieldValue>;

export interface Contact {
  id: string;
  email: string;
  userId: string | null;
  subscriptionStatus: SubscriptionStatus;
  fields: FieldMap;
  companyId: string | null;
  sfdcLeadId: string | null;
  sfdcContactId: string | null;
  sfdcAccountId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Company {
  id: string;
  fields: FieldMap;
  createdAt: string;
  updatedAt: string;
}

export interface RelationshipInfo {
  targetObjectType: ObjectType;
  targetCustomObjectId?: string;
  /** Key of the paired field on the other side. */
  pairedKey: string;
  /** True for the automatically maintained reverse side. */
  reverse: boolean;
}

export interface StoredField {
  key: string;
  label: string;
  objectType: ObjectType;
  dataType: DataType;
  readOnly: boolean;
  customObjectId?: string;
  relationship?: RelationshipInfo;
  createdAt: string;
}

export interface CustomEvent {
  eventId: string;
  contactId: string;
  occurredAt: string;
  createdAt: string;
  eventName: string;
  source: string;
  clientEventId: string;
  data: Record<string, unknown>;
}

export interface EmailEvent {
  eventId: string;
  contactId: string;
  occurredAt: string;
  eventType: EmailEventType;
  sourceType: string;
  sourceId: string;
  emailId: string;
  emailName: string | null;
  sentEmailId: string;
  isBot: boolean;
  link: string | null;
  topicIds: string[] | null;
  bounceType: string | null;
  errorMessage: string | null;
}

export interface Audience {
  id: string;
  name: string;
  memberIds: Set<string>;
  createdAt: string;
  updatedAt: string;
}

export interface CampaignType {
  id: string;
  name: string;
  systemType: string;
  /** In the type's configured progression order. */
  statuses: {
    id: string;
    name: string;
    isSuccess: boolean;
  }[];
}

export interface Campaign {
  id: string;
  name: string;
  typeId: string;
  sfdcCampaignId: string | null;
  description: string;
  archived: boolean;
  /** contactId -> campaign member status id (null when none assigned). */
  members: Map<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

interface FormField {
  fieldId: string;
  name: string;
  type: string;
  required: boolean;
  hidden: boolean;
  options?: {
    label: string;
    value: string;
  }[];
}

export interface StoredForm {
  id: string;
  name: string;
  workspaceId: string;
  kind: 'NATIVE' | 'EXTERNAL' | 'AD';
  tracked: boolean;
  published: boolean;
  archived: boolean;
  fields: FormField[];
  submissionCount: number;
  lastSubmittedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Workflow {
  id: string;
  name: string;
  apiTriggered: boolean;
  active: boolean;
  triggers: {
    contactId: string;
    data: Record<string, unknown>;
    triggeredAt: string;
  }[];
  createdAt: string;
  updatedAt: string;
}

export interface CustomObject {
  id: string;
  key: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface CustomObjectRecord {
  id: string;
  customObjectId: string;
  clientDedupKey: string;
  /** Field values, reverse relationship values included (relationship links: store.links). */
  fields: FieldMap;
  createdAt: string;
  updatedAt: string;
}
