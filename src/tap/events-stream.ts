import { EMAIL_EVENT_TYPES, type ExportRow } from '../endpoints/exports.js';
import type { PageFormat } from '../exporter/page-format.js';
import type { LanePosition } from '../exporter/state.js';
import { parseJson } from '../json/exact-json.js';
import { stringifyJson } from '../lib/exact-number.js';
import { oneLine } from '../lib/json-scan.js';
import { runLane } from './lane.js';
import { recordEnd, recordStart } from './messages.js';
import { customEventsSchema, emailEventsSchema, type JsonSchema } from './schemas.js';
import { NEW_LANE } from './bookmarks.js';
import { STREAMS, type StreamName } from './stream-table.js';
import type { TapRun } from './tap-run.js';

/**
 * RECORD lines of events: the row's own text (every digit as sent), rows older than `sinceMs`
 * left out; with deselected properties, the row read losslessly and written without them.
 */
function eventFormat(run: TapRun, stream: StreamName, sinceMs?: number): PageFormat {
  const start = recordStart(stream);
  const end = recordEnd(undefined, run.extractedAt);
  const excluded = run.opts.excluded[stream];
  const body = (row: ExportRow, text = JSON.stringify(row)): string => {
    if (!excluded) return oneLine(text);
    const record = parseJson(text) as Record<string, unknown>;
    for (const name of excluded) delete record[name];
    return stringifyJson(record);
  };
  return {
    preamble: () => Buffer.alloc(0),
    line: (row: ExportRow, text?: string) =>
      sinceMs !== undefined && Date.parse(String(row.occurredAt)) < sinceMs ? '' : start + body(row, text) + end,
  };
}

/** A stream's schema without the properties the catalog deselects. */
function withoutExcluded(run: TapRun, stream: StreamName, schema: JsonSchema): JsonSchema {
  for (const name of run.opts.excluded[stream] ?? []) delete (schema.properties as Record<string, unknown>)[name];
  return schema;
}

/** The lane input every stream shares. */
function laneBase(run: TapRun, label: string) {
  const { deps, out } = run;
  return { http: deps.http, label, signal: deps.signal, now: deps.now, warn: deps.warn, out, afterPage: run.checkHeap };
}

export async function syncCustomEvents(run: TapRun): Promise<void> {
  const { deps, out } = run;
  const { key, replicationKey } = STREAMS.custom_events;
  await out.schema(
    'custom_events',
    withoutExcluded(run, 'custom_events', customEventsSchema()),
    [key],
    [replicationKey],
  );
  const prior = run.bookmarks.custom_events;
  // The window's start goes with the first call only; a later run's cursor carries it.
  const since = prior?.since ?? run.opts.startDate ?? '1970-01-01T00:00:00.000Z';
  const base = { account: deps.account, replication_key: 'occurredAt' as const, since };
  await runLane({
    ...laneBase(run, 'custom_events'),
    target: { kind: 'custom-events', window: { since } },
    start: prior ?? NEW_LANE,
    limit: run.limit('custom-events'),
    format: eventFormat(run, 'custom_events'),
    commit: (pos) => {
      run.bookmarks.custom_events = { ...pos, ...base };
      return run.commit();
    },
  });
}

export async function syncEmailEvents(run: TapRun): Promise<void> {
  const { deps, out } = run;
  const { key, replicationKey } = STREAMS.email_events;
  await out.schema('email_events', withoutExcluded(run, 'email_events', emailEventsSchema()), [key], [replicationKey]);
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
      format: eventFormat(run, 'email_events', sinceMs),
      commit: (pos) => {
        types[type] = pos;
        run.bookmarks.email_events = { account: deps.account, replication_key: 'occurredAt', types: { ...types } };
        return run.commit();
      },
    });
  }
}
