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
