import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { EMAIL_EVENT_TYPES, type EmailEventType } from './email-event-types.js';
export { EMAIL_EVENT_TYPES, type EmailEventType };

/** Page size bounds of each export (the API clamps to them; so does cnv, before sending). */
export const EXPORT_PAGE_LIMITS = {
  contacts: { max: 5000, default: 1000 },
  'custom-events': { max: 1000, default: 1000 },
  'email-events': { max: 5000, default: 1000 },
} as const;

/** One exported row, kept exactly as the API sent it (unknown members included). */
export type ExportRow = Record<string, unknown>;

export interface ExportPage {
  rows: ExportRow[];
  nextCursor: string | null;
}

// Rows are checked cheaply (an object with its id) and passed through untouched, so NDJSON can
// write them as sent and a million rows do not each go through a full schema.
const rowWith = (id: string) =>
  z.custom<ExportRow>((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as ExportRow)[id] === 'string', {
    message: `expected an object with a string ${id}`,
  });

const contactsData = z.looseObject({ contacts: z.array(rowWith('id')) });
const eventsData = z.looseObject({ events: z.array(rowWith('eventId')) });

/** POSTs an export request and returns the page's rows (`member`) and next cursor. */
async function post(
  http: HttpClient, path: string, body: Record<string, unknown>, data: typeof contactsData | typeof eventsData, member: 'contacts' | 'events', signal?: AbortSignal,
): Promise<ExportPage> {
  // Exports are reads: safe to retry.
  const res = await http.request({ method: 'POST', path, body, data, paginated: true, idempotency: 'safe', signal });
  return { rows: (res.data as Record<string, ExportRow[]>)[member], nextCursor: res.nextCursor ?? null };
}

/** POST /v2/exports/contacts: contacts by updatedAt; a stored cursor yields those written since. */
export async function exportContacts(http: HttpClient, req: { cursor?: string; limit: number }, signal?: AbortSignal): Promise<ExportPage> {
  return post(http, '/v2/exports/contacts', { cursor: req.cursor, limit: req.limit }, contactsData, 'contacts', signal);
}

/** POST /v2/exports/custom-events: the window goes with the first call only, the cursor alone after. */
export async function exportCustomEvents(
  http: HttpClient,
  req: { cursor?: string; occurredAt?: { start: string; end?: string }; limit: number },
  signal?: AbortSignal,
): Promise<ExportPage> {
  const body = req.cursor ? { cursor: req.cursor, limit: req.limit } : { occurredAt: req.occurredAt, limit: req.limit };
  return post(http, '/v2/exports/custom-events', body, eventsData, 'events', signal);
}

/** POST /v2/exports/email-events: one event type per call. */
export async function exportEmailEvents(
  http: HttpClient,
  req: { eventType: EmailEventType; cursor?: string; limit: number },
  signal?: AbortSignal,
): Promise<ExportPage> {
  return post(http, '/v2/exports/email-events', { eventType: req.eventType, cursor: req.cursor, limit: req.limit }, eventsData, 'events', signal);
}
