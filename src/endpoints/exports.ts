import { z } from 'zod';
import type { HttpClient, RowReceiver } from '../http/client.js';
import { EMAIL_EVENT_TYPES, type EmailEventType } from './email-event-types.js';
import { ENDPOINTS, idempotencyOf, type Endpoint } from './endpoints.js';
export { EMAIL_EVENT_TYPES, type EmailEventType };

/**
 * Page size bounds of each export (the endpoint table's: the API clamps to them; so does cnv,
 * before sending). cnv asks for the largest page unless `--limit` says otherwise (the API's own
 * default is 1000): every page is one request from the business's shared budget of 200 a
 * second, and at 1,000 rows a page cnv's own limiter, not the transfer, set the pace of a large
 * export.
 */
export const EXPORT_PAGE_LIMITS = {
  contacts: { max: ENDPOINTS.exportContacts.page.max, default: ENDPOINTS.exportContacts.page.max },
  'custom-events': { max: ENDPOINTS.exportCustomEvents.page.max, default: ENDPOINTS.exportCustomEvents.page.max },
  'email-events': { max: ENDPOINTS.exportEmailEvents.page.max, default: ENDPOINTS.exportEmailEvents.page.max },
} as const;

/** One exported row, kept exactly as the API sent it (unknown members included). */
export type ExportRow = Record<string, unknown>;

/** Takes one page's rows as they stream in (made afresh for every attempt at the page). */
export type PageReceiver<P> = RowReceiver<P>;

// Rows are checked cheaply (an object with its id) and passed through untouched, so NDJSON can
// write them as sent and a million rows do not each go through a full schema.
const rowWith = (id: string) =>
  z.custom<ExportRow>((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as ExportRow)[id] === 'string', {
    message: `expected an object with a string ${id}`,
  });

const contactRow = rowWith('id');
const eventRow = rowWith('eventId');

/** Sends an export request; its rows stream into the receiver, which makes the page. */
function post<P>(
  http: HttpClient, endpoint: Endpoint, body: Record<string, unknown>, member: 'contacts' | 'events', receive: () => PageReceiver<P>, signal?: AbortSignal,
): Promise<P> {
  // Exports are reads: safe to retry.
  const row = member === 'contacts' ? contactRow : eventRow;
  return http.requestRows({ method: endpoint.method, path: endpoint.path, body, member, row, idempotency: idempotencyOf(endpoint), signal }, receive);
}

/** POST /v2/exports/contacts: contacts by updatedAt; a stored cursor yields those written since. */
export function exportContacts<P>(http: HttpClient, req: { cursor?: string; limit: number }, receive: () => PageReceiver<P>, signal?: AbortSignal): Promise<P> {
  return post(http, ENDPOINTS.exportContacts, { cursor: req.cursor, limit: req.limit }, 'contacts', receive, signal);
}

/** POST /v2/exports/custom-events: the window goes with the first call only, the cursor alone after. */
export function exportCustomEvents<P>(
  http: HttpClient,
  req: { cursor?: string; occurredAt?: { start: string; end?: string }; limit: number },
  receive: () => PageReceiver<P>,
  signal?: AbortSignal,
): Promise<P> {
  const body = req.cursor ? { cursor: req.cursor, limit: req.limit } : { occurredAt: req.occurredAt, limit: req.limit };
  return post(http, ENDPOINTS.exportCustomEvents, body, 'events', receive, signal);
}

/** POST /v2/exports/email-events: one event type per call. */
export function exportEmailEvents<P>(
  http: HttpClient,
  req: { eventType: EmailEventType; cursor?: string; limit: number },
  receive: () => PageReceiver<P>,
  signal?: AbortSignal,
): Promise<P> {
  return post(http, ENDPOINTS.exportEmailEvents, { eventType: req.eventType, cursor: req.cursor, limit: req.limit }, 'events', receive, signal);
}
