import type { LogPosition } from '../change-log.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { takeOrdered, type Taken } from '../export-index.js';
import { contactSources, customEventSources, emailEventSources, type Row } from '../export-rows.js';
import { EMAIL_EVENT_TYPES, type EmailEventType } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { isIsoDateTime, isPlainObject } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** The custom event export walks its window in segments of this length. */
const CUSTOM_EVENT_SEGMENT_MS = 7 * 86_400_000;
/** Segments one custom event page may scan (about 19 years): beyond, an empty page with a cursor. */
const MAX_SEGMENTS_PER_PAGE = 1000;

/** The three export endpoints (all gated: 403 export_not_enabled without enablement). */
export function exportRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.exportContacts, exportContacts);
  serve(router, ENDPOINTS.exportCustomEvents, exportCustomEvents);
  serve(router, ENDPOINTS.exportEmailEvents, exportEmailEvents);
}

interface ContactsCursor {
  b: string;
  p: LogPosition;
}

interface CustomEventsCursor {
  b: string;
  /** Window: start, and end or null (open). */
  w: [number, number | null];
  /** Start of the current segment. */
  g: number;
  /** Position of the last row returned in this segment, or null at its start. */
  p: LogPosition | null;
}

interface EmailEventsCursor {
  b: string;
  t: EmailEventType;
  p: LogPosition;
}

function exportContacts({ body, store }: ApiContext): RouteResult {
  const limit = readLimit(body, ENDPOINTS.exportContacts.page);
  const cursor = readCursor<ContactsCursor>(body, 'export-contacts', store);
  const rows = takeOrdered(contactSources(store), { after: cursor?.p ?? null }, limit);
  const next =
    rows.length === limit
      ? encodeCursor(
          { b: store.id, p: lastPosition(rows) } satisfies ContactsCursor,
          'export-contacts',
          store.cursorSecret,
        )
      : null;
  return page('contacts', rows, next);
}

function exportCustomEvents({ body, store }: ApiContext): RouteResult {
  const limit = readLimit(body, ENDPOINTS.exportCustomEvents.page);
  const hasWindow = body.occurredAt !== undefined && body.occurredAt !== null;
  const hasCursor = body.cursor !== undefined && body.cursor !== null && body.cursor !== '';
  if (hasCursor && hasWindow)
    throw new EmulatorError(
      400,
      'invalid_window',
      'Send occurredAt on the first call only; later calls send the cursor alone',
    );
  const saved = readCursor<CustomEventsCursor>(body, 'export-custom-events', store);
  const cur: CustomEventsCursor = saved ?? firstSegment(store.id, readWindow(body.occurredAt));
  const [, end] = cur.w;
  const { sources, lastMs } = customEventSources(store);
  // An open window ends with the segment holding the present (or the latest event).
  const windowEnd = end ?? segmentAfter(cur.g, Math.max(Date.now(), lastMs));
  // A page fills across segments, up to a bounded number of them: a long empty stretch costs
  // one call per MAX_SEGMENTS_PER_PAGE segments (an empty page with a cursor), not one per segment.
  const scanEnd = Math.min(cur.g + CUSTOM_EVENT_SEGMENT_MS * MAX_SEGMENTS_PER_PAGE, windowEnd);
  const rows = takeOrdered(sources, { after: cur.p, fromMs: cur.g, toMs: scanEnd }, limit);
  const after = (last: LogPosition): CustomEventsCursor => ({
    ...cur,
    g: cur.g + Math.floor((last[0] - cur.g) / CUSTOM_EVENT_SEGMENT_MS) * CUSTOM_EVENT_SEGMENT_MS,
    p: last,
  });
  let next: CustomEventsCursor | null;
  if (rows.length === limit) next = after(lastPosition(rows));
  else if (scanEnd < windowEnd) next = { ...cur, g: scanEnd, p: null };
  // An open window that reached the present: a cursor after the last row, so the walk's last
  // non-null cursor later returns the events that occurred since (the next page is empty, null).
  else if (end === null && rows.length > 0) next = after(lastPosition(rows));
  else next = null;
  return page('events', rows, next && encodeCursor(next, 'export-custom-events', store.cursorSecret));
}

function exportEmailEvents({ body, store }: ApiContext): RouteResult {
  const type = readEventType(body.eventType);
  const limit = readLimit(body, ENDPOINTS.exportEmailEvents.page);
  const cursor = readCursor<EmailEventsCursor>(body, 'export-email-events', store);
  if (cursor && cursor.t !== type)
    throw new EmulatorError(400, 'invalid_cursor', `Cursor was made for eventType ${cursor.t}`);
  const rows = takeOrdered(emailEventSources(store, type), { after: cursor?.p ?? null }, limit);
  const next =
    rows.length === limit
      ? encodeCursor(
          { b: store.id, t: type, p: lastPosition(rows) } satisfies EmailEventsCursor,
          'export-email-events',
          store.cursorSecret,
        )
      : null;
  return page('events', rows, next);
}

function page(member: string, rows: Taken<Row>[], nextCursor: string | null): RouteResult {
  return { body: { data: { [member]: rows.map((r) => r.row) }, pagination: { nextCursor } } };
}

function lastPosition(rows: Taken<Row>[]): LogPosition {
  return rows[rows.length - 1].position;
}

/** The page's default (1000) without one; numbers outside min..max are clamped; anything but a number is invalid_request. */
function readLimit(body: Record<string, unknown>, page: { min: number; max: number; default: number }): number {
  const v = body.limit;
  if (v === undefined || v === null) return page.default;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidRequest('limit must be a number');
  return Math.min(page.max, Math.max(page.min, Math.trunc(v)));
}

/** A cursor of this endpoint and business, or undefined for the first page (absent or ""). */
function readCursor<T extends { b: string }>(
  body: Record<string, unknown>,
  kind: string,
  store: BusinessStore,
): T | undefined {
  const v = body.cursor;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
  const payload = decodeCursor<T>(v, kind, store.cursorSecret);
  // The signing key derives from the seed (not secret), so a cursor's shape is checked too.
  if (payload?.b !== store.id || !wellFormed(payload as unknown as Record<string, unknown>))
    throw new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
  return payload;
}

const isPosition = (p: unknown) =>
  Array.isArray(p) && p.length === 2 && Number.isFinite(p[0]) && typeof p[1] === 'string';
const isInstant = (n: unknown) => typeof n === 'number' && Number.isFinite(n);

/** The members a cursor of any of the three exports may hold, of the right types. */
function wellFormed(c: Record<string, unknown>): boolean {
  if ('p' in c && !(c.p === null ? 'g' in c : isPosition(c.p))) return false;
  if ('t' in c && !(EMAIL_EVENT_TYPES as readonly unknown[]).includes(c.t)) return false;
  if ('g' in c) {
    const w = c.w;
    if (
      !isInstant(c.g) ||
      !Array.isArray(w) ||
      w.length !== 2 ||
      !isInstant(w[0]) ||
      !(w[1] === null || isInstant(w[1]))
    )
      return false;
  }
  return true;
}

function readWindow(v: unknown): [number, number | null] {
  if (v === undefined || v === null)
    throw invalidRequest('occurredAt { start, end? } is required on the first call (without a cursor)');
  if (!isPlainObject(v)) throw invalidRequest('occurredAt must be an object { start, end? }');
  const start = readInstant(v.start, 'occurredAt.start');
  if (start === null) throw invalidRequest('occurredAt.start is required');
  const end = readInstant(v.end, 'occurredAt.end');
  if (end !== null && end < start) throw invalidRequest('occurredAt.end is before occurredAt.start');
  return [start, end];
}

function readInstant(v: unknown, name: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !isIsoDateTime(v))
    throw invalidRequest(`${name} must be an ISO 8601 date-time with a time zone`);
  return Date.parse(v);
}

/** The end of the segment (counted from `start`) that holds `ms`. */
function segmentAfter(start: number, ms: number): number {
  return start + (Math.floor((ms - start) / CUSTOM_EVENT_SEGMENT_MS) + 1) * CUSTOM_EVENT_SEGMENT_MS;
}

function firstSegment(businessId: string, window: [number, number | null]): CustomEventsCursor {
  return { b: businessId, w: window, g: window[0], p: null };
}

function readEventType(v: unknown): EmailEventType {
  if (v === undefined || v === null) throw invalidRequest('eventType is required');
  const found = typeof v === 'string' ? EMAIL_EVENT_TYPES.find((t) => t === v.trim().toUpperCase()) : undefined;
  if (!found)
    throw new EmulatorError(
      400,
      'invalid_field',
      `Unsupported eventType ${JSON.stringify(v)}; use one of ${EMAIL_EVENT_TYPES.join(', ')}`,
    );
  return found;
}
