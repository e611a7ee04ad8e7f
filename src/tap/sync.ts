import { EMAIL_EVENT_TYPES, type ExportRow } from '../endpoints/exports.js';
import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import type { PageFormat } from '../exporter/page-format.js';
import type { LanePosition } from '../exporter/state.js';
import { oneLine } from '../lib/json-scan.js';
import { syncContacts } from './contacts-stream.js';
import { runLane } from './lane.js';
import { recordEnd, recordStart, SingerOut } from './messages.js';
import type { TapDeps } from './run-deps.js';
import { customEventsSchema, emailEventsSchema } from './schemas.js';
import { NEW_LANE, type Bookmarks } from './state.js';
import { STREAMS, type StreamName } from './streams.js';

/** What one sync is asked for. */
export interface SyncOptions {
  selected: ReadonlySet<StreamName>;
  bookmarks: Bookmarks;
  /** ISO 8601: the first run's lower bound (custom events' window start; contacts and email events older are not emitted). */
  startDate?: string;
  /** Rows per request (clamped to each export's bounds); each export's largest by default. */
  pageSize?: number;
}

/** A sync in progress: where messages go, and the bookmarks every STATE carries. */
export interface SyncRun {
  deps: TapDeps;
  opts: SyncOptions;
  out: SingerOut;
  bookmarks: Bookmarks;
  /** When this run began: RECORDs' time_extracted. */
  extractedAt: string;
  limit(kind: keyof typeof EXPORT_PAGE_LIMITS): number;
  /** Writes a STATE with every bookmark. */
  commit(): Promise<void>;
}

/**
 * Syncs the selected streams in order (contacts, custom_events, email_events): a SCHEMA first,
 * then each page's RECORDs and a STATE after them; a final STATE always. Streams not selected
 * are not read at all; their bookmarks in the given state are carried over unchanged.
 */
export async function sync(deps: TapDeps, opts: SyncOptions): Promise<void> {
  const out = new SingerOut(deps.stdout);
  const run: SyncRun = {
    deps, opts, out,
    bookmarks: { ...opts.bookmarks },
    extractedAt: new Date(deps.now()).toISOString(),
    limit: (kind) => Math.max(1, Math.min(EXPORT_PAGE_LIMITS[kind].max, opts.pageSize ?? EXPORT_PAGE_LIMITS[kind].default)),
    commit: () => out.state({ bookmarks: run.bookmarks }),
  };
  if (opts.selected.has('contacts')) await syncContacts(run);
  if (opts.selected.has('custom_events')) await syncCustomEvents(run);
  if (opts.selected.has('email_events')) await syncEmailEvents(run);
  await run.commit();
}

/** RECORD lines of events: the row's own text (every digit as sent), rows older than `sinceMs` left out. */
export function eventFormat(stream: StreamName, extractedAt: string, sinceMs?: number): PageFormat {
  const start = recordStart(stream);
  const end = recordEnd(undefined, extractedAt);
  return {
    preamble: () => Buffer.alloc(0),
    line: (row: ExportRow, text?: string) => (sinceMs !== undefined && Date.parse(String(row.occurredAt)) < sinceMs ? '' : start + (text === undefined ? JSON.stringify(row) : oneLine(text)) + end),
  };
}

/** The lane input every stream shares. */
function laneBase(run: SyncRun, label: string) {
  const { deps, out } = run;
  return { http: deps.http, label, signal: deps.signal, now: deps.now, warn: deps.warn, out };
}

async function syncCustomEvents(run: SyncRun): Promise<void> {
  const { deps, out } = run;
  const { key, replicationKey } = STREAMS.custom_events;
  await out.schema('custom_events', customEventsSchema(), [key], [replicationKey]);
  const prior = run.bookmarks.custom_events;
  // The window's start goes with the first call only; a later run's cursor carries it.
  const since = prior?.since ?? run.opts.startDate ?? '1970-01-01T00:00:00.000Z';
  const base = { account: deps.account, replication_key: 'occurredAt' as const, since };
  await runLane({
    ...laneBase(run, 'custom_events'),
    target: { kind: 'custom-events', window: { since } },
    start: prior ?? NEW_LANE,
    limit: run.limit('custom-events'),
    format: eventFormat('custom_events', run.extractedAt),
    commit: (pos) => {
      run.bookmarks.custom_events = { ...pos, ...base };
      return run.commit();
    },
  });
}

async function syncEmailEvents(run: SyncRun): Promise<void> {
  const { deps, out } = run;
  const { key, replicationKey } = STREAMS.email_events;
  await out.schema('email_events', emailEventsSchema(), [key], [replicationKey]);
  const types: Partial<Record<string, LanePosition>> = { ...run.bookmarks.email_events?.types };
  for (const type of EMAIL_EVENT_TYPES) {
    const prior = types[type];
    // start_date applies to a type's first run only: older events are read and not emitted.
    const sinceMs = !prior && run.opts.startDate ? Date.parse(run.opts.startDate) : undefined;
    await runLane({
      ...laneBase(run, `email_events ${type}`),
      target: { kind: 'email-events', emailType: type },
      start: prior ?? NEW_LANE,
      limit: run.limit('email-events'),
      format: eventFormat('email_events', run.extractedAt, sinceMs),
      commit: (pos) => {
        types[type] = pos;
        run.bookmarks.email_events = { account: deps.account, replication_key: 'occurredAt', types: { ...types } };
        return run.commit();
      },
    });
  }
}
