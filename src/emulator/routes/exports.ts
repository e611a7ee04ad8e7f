import type { Position } from '../change-log.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { EmulatorError, invalidRequest } from '../errors.js';
import { takeOrdered, type Taken } from '../export-index.js';
import { contactSources, customEventSources, emailEventSources, type Row } from '../export-rows.js';
import { EMAIL_EVENT_TYPES, type EmailEventType } from '../model.js';
import type { ApiContext, ApiRouter, RouteResult } from '../router.js';
import { isIsoDateTime, isPlainObject } from '../validate.js';

/** Page sizes of the three exports: default, and the maximum values are clamped to. */
export const EXPORT_LIMITS = { default: 1000, contacts: 5000, customEvents: 1000, emailEvents: 5000 } as const;
/** The custom event export walks its window in segments of this length; a page never spans two. */
export const CUSTOM_EVENT_SEGMENT_MS = 7 * 86_400_000;

/** The three export endpoints (all gated: 403 export_not_enabled without enablement). */
export function exportRoutes(router: ApiRouter): void {
  router.add('POST', '/v2/exports/contacts', exportContacts, { gated: true });
  router.add('POST', '/v2/exports/custom-events', exportCustomEvents, { gated: true });
  router.add('POST', '/v2/exports/email-events', exportEmailEvents, { gated: true });
}

interface ContactsCursor {
  b: string;
  p: Position;
}

interface CustomEventsCursor {
  b: string;
  /** Window: start, and end or null (open). */
  w: [number, number | null];
  /** Start of the current segment. */
  g: number;
  /** Position of the last row returned in this segment, or null at its start. */
  p: Position | null;
}

interface EmailEventsCursor {
  b: string;
  t: EmailEventType;
  p: Position;
}

function exportContacts({ body, store }: ApiContext): RouteResult {
  const limit = readLimit(body, EXPORT_LIMITS.contacts);
  const cursor = readCursor<ContactsCursor>(body, 'export-contacts', store.id);
  const rows = takeOrdered(contactSources(store), { after: cursor?.p ?? null }, limit);
  const next = rows.length === limit ? encodeCursor({ b: store.id, p: lastPosition(rows) } satisfies ContactsCursor, 'export-contacts') : null;
  return page('contacts', rows, next);
}

function exportCustomEvents({ body, store }: ApiContext): RouteResult {
  const limit = readLimit(body, EXPORT_LIMITS.customEvents);
  const hasWindow = body.occurredAt !== undefined && body.occurredAt !== null;
  const hasCursor = body.cursor !== undefined && body.cursor !== null && body.cursor !== '';
  if (hasCursor && hasWindow) throw new EmulatorError(400, 'invalid_window', 'Send occurredAt on the first call only; later calls send the cursor alone');
  const saved = readCursor<CustomEventsCursor>(body, 'export-custom-events', store.id);
  const cur: CustomEventsCursor = saved ?? firstSegment(store.id, readWindow(body.occurredAt));
  const [, end] = cur.w;
  const segmentEnd = Math.min(cur.g + CUSTOM_EVENT_SEGMENT_MS, end ?? Infinity);
  const { sources, lastMs } = customEventSources(store);
  const rows = takeOrdered(sources, { after: cur.p, fromMs: cur.g, toMs: segmentEnd }, limit);
  let next: CustomEventsCursor | null;
  if (rows.length === limit) {
    next = { ...cur, p: lastPosition(rows) };
  } else {
    // An open window ends with the segment holding the present (or the latest event).
    const done = end !== null ? segmentEnd >= end : segmentEnd > Math.max(Date.now(), lastMs);
    next = done ? null : { ...cur, g: segmentEnd, p: null };
  }
  return page('events', rows, next && encodeCursor(next, 'export-custom-events'));
}

function exportEmailEvents({ body, store }: ApiContext): RouteResult {
  const type = readEventType(body.eventType);
  const limit = readLimit(body, EXPORT_LIMITS.emailEvents);
  const cursor = readCursor<EmailEventsCursor>(body, 'export-email-events', store.id);
  if (cursor && cursor.t !== type) throw new EmulatorError(400, 'invalid_cursor', `Cursor was made for eventType ${cursor.t}`);
  const rows = takeOrdered(emailEventSources(store, type), { after: cursor?.p ?? null }, limit);
  const next = rows.length === limit ? encodeCursor({ b: store.id, t: type, p: lastPosition(rows) } satisfies EmailEventsCursor, 'export-email-events') : null;
  return page('events', rows, next);
}

function page(member: string, rows: Taken<Row>[], nextCursor: string | null): RouteResult {
  return { body: { data: { [member]: rows.map((r) => r.row) }, pagination: { nextCursor } } };
}

function lastPosition(rows: Taken<Row>[]): Position {
  return rows[rows.length - 1].position;
}

/** Default 1000; numbers outside 1..max are clamped; anything but a number is invalid_request. */
function readLimit(body: Record<string, unknown>, max: number): number {
  const v = body.limit;
  if (v === undefined || v === null) return Math.min(EXPORT_LIMITS.default, max);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidRequest('limit must be a number');
  return Math.min(max, Math.max(1, Math.trunc(v)));
}

/** A cursor of this endpoint and business, or undefined for the first page (absent or ""). */
function readCursor<T extends { b: string }>(body: Record<string, unknown>, kind: string, businessId: string): T | undefined {
  const v = body.cursor;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
  const payload = decodeCursor<T>(v, kind);
  if (payload?.b !== businessId) throw new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
  return payload;
}

function readWindow(v: unknown): [number, number | null] {
  if (v === undefined || v === null) throw invalidRequest('occurredAt { start, end? } is required on the first call (without a cursor)');
  if (!isPlainObject(v)) throw invalidRequest('occurredAt must be an object { start, end? }');
  const start = readInstant(v.start, 'occurredAt.start');
  if (start === null) throw invalidRequest('occurredAt.start is required');
  const end = readInstant(v.end, 'occurredAt.end');
  if (end !== null && end < start) throw new EmulatorError(400, 'invalid_window', 'occurredAt.end is before occurredAt.start');
  return [start, end];
}

function readInstant(v: unknown, name: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !isIsoDateTime(v)) throw invalidRequest(`${name} must be an ISO 8601 date-time with a time zone`);
  return Date.parse(v);
}

function firstSegment(businessId: string, window: [number, number | null]): CustomEventsCursor {
  return { b: businessId, w: window, g: window[0], p: null };
}

function readEventType(v: unknown): EmailEventType {
  if (v === undefined || v === null) throw invalidRequest('eventType is required');
  const found = typeof v === 'string' ? EMAIL_EVENT_TYPES.find((t) => t === v.trim().toUpperCase()) : undefined;
  if (!found) throw new EmulatorError(400, 'invalid_field', `Unsupported eventType ${JSON.stringify(v)}; use one of ${EMAIL_EVENT_TYPES.join(', ')}`);
  return found;
}
