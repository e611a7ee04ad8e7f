import { z } from 'zod';
import type { RowReceiver } from '../http/page-reader.js';
import { once } from '../lib/once.js';
import { EMAIL_EVENT_TYPES, type EmailEventType } from './email-event-types.js';
export { EMAIL_EVENT_TYPES, type EmailEventType };

/** One exported row, kept exactly as the API sent it (unknown members included). */
export type ExportRow = Record<string, unknown>;

/** Takes one page's rows as they stream in (made afresh for every attempt at the page). */
export type PageReceiver<P> = RowReceiver<P>;

// Rows are checked cheaply (an object with its id) and passed through untouched, so NDJSON can
// write them as sent and a million rows do not each go through a full schema.
const rowWith = (id: string) =>
  z.custom<ExportRow>(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as ExportRow)[id] === 'string',
    {
      message: `expected an object with a string ${id}`,
    },
  );

/** A row of `data.contacts` of the contacts export. */
export const contactRow = once(() => rowWith('id'));
/** A row of `data.events` of the custom and email event exports. */
export const eventRow = once(() => rowWith('eventId'));

/** The body of POST /v2/exports/contacts: a stored cursor yields the contacts written since. */
export interface ContactsExportBody {
  cursor?: string;
  limit: number;
}

/** The body of POST /v2/exports/custom-events: the window goes with the first call only, the cursor alone after. */
export type CustomEventsExportBody =
  { cursor: string; limit: number } | { occurredAt?: { start: string; end?: string }; limit: number };

/** The body of POST /v2/exports/email-events: one event type per call. */
export interface EmailEventsExportBody {
  eventType: EmailEventType;
  cursor?: string;
  limit: number;
}

/** The three exports, as cnv names them (`cnv export <kind>`, an export state's `kind`). */
export const EXPORT_KINDS = ['contacts', 'custom-events', 'email-events'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/**
 * One member of an export's rows (api-spec: Exported contact, Custom event, Email event): its
 * JSON type, whether it may be null, and the format of a string. The CSV's fixed columns
 * (src/exporter/csv-layout.ts) and the tap's JSON Schemas (src/tap/schemas.ts) are made from
 * these, and test/emulator/exports-members.test.ts holds the emulator's rows to them.
 */
export interface ExportMember {
  name: string;
  type: 'string' | 'boolean' | 'object' | 'array';
  nullable: boolean;
  format?: 'date-time';
}

const member = (name: string, type: ExportMember['type'], nullable: boolean, format?: 'date-time'): ExportMember => ({
  name,
  type,
  nullable,
  ...(format ? { format } : {}),
});
const text = (name: string) => member(name, 'string', true);

/**
 * The members of each export's rows, in the spec's order. A contact's `fields` (its field
 * values keyed by label, one column or property per field) is not among them: `CONTACT_FIELDS`.
 */
export const EXPORT_MEMBERS: Record<ExportKind, readonly ExportMember[]> = {
  contacts: [
    member('id', 'string', false),
    text('sfdcLeadId'),
    text('sfdcContactId'),
    text('sfdcAccountId'),
    text('email'),
    text('subscriptionStatus'),
    member('createdAt', 'string', true, 'date-time'),
    member('updatedAt', 'string', false, 'date-time'),
  ],
  'custom-events': [
    member('eventId', 'string', false),
    text('contactId'),
    member('occurredAt', 'string', false, 'date-time'),
    member('createdAt', 'string', true, 'date-time'),
    text('eventName'),
    text('source'),
    text('contactEmail'),
    text('userId'),
    text('clientEventId'),
    member('data', 'object', true),
  ],
  'email-events': [
    member('eventId', 'string', false),
    text('contactId'),
    member('occurredAt', 'string', false, 'date-time'),
    member('eventType', 'string', false),
    text('sourceType'),
    text('sourceId'),
    text('emailId'),
    text('emailName'),
    text('sentEmailId'),
    member('isBot', 'boolean', true),
    text('link'),
    member('topicIds', 'array', true),
    text('bounceType'),
    text('errorMessage'),
  ],
};

/** The member of an exported contact that holds its field values, keyed by field label. */
export const CONTACT_FIELDS = 'fields';
