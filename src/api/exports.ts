import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { arrayElementSpans } from '../io/json-spans.js';
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

/** POSTs an export request; the page keeps its text for NDJSON (see rawLines). */
async function post(
  http: HttpClient, path: string, body: Record<string, unknown>, data: typeof contactsData | typeof eventsData, member: 'contacts' | 'events', signal?: AbortSignal,
): Promise<ExportPage> {
  // Exports are reads: safe to retry.
  const res = await http.request({ method: 'POST', path, body, data, paginated: true, idempotency: 'safe', signal, raw: true });
  const rows = (res.data as Record<string, ExportRow[]>)[member];
  keepRaw(res.text, member, rows);
  return { rows, nextCursor: res.nextCursor ?? null };
}

// NDJSON writes each row as the text the API sent (see rawLines). A page's lines are cut out of
// the answer when it arrives, once NDJSON output has asked for them (CSV never does), so the
// answer's text dies young instead of being kept while the page before is written. Only the
// pages not yet written are kept: the one being written and the one fetched ahead. (A WeakMap
// entry per row of a million-row export made garbage collection the main cost instead.)
interface RawPage {
  index: Map<ExportRow, number>;
  /** The answer's text, until its lines are cut. */
  text?: string;
  member: string;
  first: ExportRow;
  last: ExportRow;
  /** Every row's line ("\n" included) in row order, and where each line ends; null if the answer could not be cut. */
  lines?: { bytes: Buffer; ends: number[] } | null;
}
let recentPages: RawPage[] = [];
const KEPT_PAGES = 2;
let ndjsonWanted = false;

/**
 * The NDJSON lines of `rows` (rows of one answer, in its order, maybe with some left out) as
 * the API sent them, or undefined when they are not known: the caller then serialises them.
 */
export function rawLines(rows: readonly ExportRow[]): Buffer | undefined {
  ndjsonWanted = true;
  if (rows.length === 0) return Buffer.alloc(0);
  const at = recentPages.findIndex((p) => p.index.has(rows[0]));
  if (at < 0) return undefined;
  const page = recentPages[at];
  // Pages are written in order: the older ones are done with.
  recentPages = recentPages.slice(at);
  if (page.lines === undefined) page.lines = cutLines(page);
  const lines = page.lines;
  if (!lines) return undefined;
  const picked: number[] = [];
  for (const row of rows) {
    const i = page.index.get(row);
    if (i === undefined || (picked.length > 0 && i <= picked[picked.length - 1])) return undefined;
    picked.push(i);
  }
  if (picked.length === lines.ends.length) return lines.bytes;
  return Buffer.concat(picked.map((i) => lines.bytes.subarray(i === 0 ? 0 : lines.ends[i - 1], lines.ends[i])));
}

/** Remembers which answer each parsed row came from. */
function keepRaw(text: string | undefined, member: string, rows: ExportRow[]): void {
  if (text === undefined || rows.length === 0) return;
  const index = new Map<ExportRow, number>();
  rows.forEach((row, i) => index.set(row, i));
  const page: RawPage = { index, text, member, first: rows[0], last: rows[rows.length - 1] };
  if (ndjsonWanted) page.lines = cutLines(page);
  recentPages.push(page);
  if (recentPages.length > KEPT_PAGES) recentPages.shift();
}

/** The page's lines, when the answer's shape allows telling its rows apart; else null. */
function cutLines(page: RawPage): { bytes: Buffer; ends: number[] } | null {
  const { text, member, index, first, last } = page;
  page.text = undefined;
  if (text === undefined) return null;
  const spans = arrayElementSpans(text, ['data', member]);
  if (!spans || spans.length !== index.size) return null;
  // A cheap guard against a misread: the first and last slices parse to their rows.
  const same = (span: [number, number], row: ExportRow) => JSON.stringify(JSON.parse(text.slice(span[0], span[1]))) === JSON.stringify(row);
  if (!same(spans[0], first) || !same(spans[spans.length - 1], last)) return null;
  const parts: string[] = [];
  const ends: number[] = [];
  let end = 0;
  for (const [start, stop] of spans) {
    const line = text.slice(start, stop);
    // A pretty-printed answer has line breaks between members: that page is serialised again.
    if (line.includes('\n') || line.includes('\r')) return null;
    parts.push(line, '\n');
    end += Buffer.byteLength(line) + 1;
    ends.push(end);
  }
  return { bytes: Buffer.from(parts.join(''), 'utf8'), ends };
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
