import { EMAIL_EVENT_TYPES, type ExportRow } from '../endpoints/exports.js';
import type { PageFormat } from '../exporter/page-format.js';
import type { LanePosition } from '../exporter/export-state.js';
import { parseJson } from '../json/exact-json.js';
import { stringifyJson } from '../lib/exact-number.js';
import { oneLine } from '../lib/json-scan.js';
import { afterRefusal, laneBase, runLane } from './lane.js';
import { recordEnd, recordStart } from './messages.js';
import { customEventsSchema, emailEventsSchema, type JsonSchema } from './schemas.js';
import { NEW_LANE } from './bookmarks.js';
import { withoutProperties } from './stream-output.js';
import { STREAMS, type StreamName } from './stream-table.js';
import type { TapRun } from './tap-run.js';

type Json = Record<string, unknown>;

/**
 * RECORD lines of events, rows older than `sinceMs` left out: the row's own text (every digit as
 * sent) when the stream goes out as it is; with deselected properties, a map or flattening, the
 * row read losslessly and written again (stream-writer.ts).
 */
function eventFormat(
  run: TapRun,
  stream: StreamName,
  sinceMs?: number,
): PageFormat & { held(row: ExportRow, text: string): Promise<void> } {
  const writer = run.writer(stream);
  const start = recordStart(stream);
  const end = recordEnd(undefined, run.extractedAt);
  const excluded = run.opts.excluded[stream];
  const record = (text: string): Json => {
    const row = parseJson(text) as Json;
    for (const name of excluded ?? []) delete row[name];
    return row;
  };
  const skip = (row: ExportRow) => sinceMs !== undefined && Date.parse(String(row.occurredAt)) < sinceMs;
  const plain = writer.plain;
  const line = (text: string): string =>
    !plain
      ? writer.lines(record(text))
      : excluded
        ? start + stringifyJson(record(text)) + end
        : start + oneLine(text) + end;
  return {
    preamble: () => Buffer.alloc(0),
    holds: writer.learns ? (row) => !skip(row) && writer.holds(record(JSON.stringify(row))) : undefined,
    line: (row: ExportRow, text = JSON.stringify(row)) => (skip(row) ? '' : line(text)),
    held: async (row, text) => {
      if (!skip(row)) await writer.writeHeld(record(text));
    },
  };
}

/** Writes the SCHEMA(s) of an events stream. */
function writeSchema(run: TapRun, stream: 'custom_events' | 'email_events', schema: JsonSchema): Promise<void> {
  const { key, replicationKey } = STREAMS[stream];
  return run.writer(stream).schema(withoutProperties(schema, run.opts.excluded[stream]), [key], [replicationKey!]);
}

export async function syncCustomEvents(run: TapRun): Promise<void> {
  await writeSchema(run, 'custom_events', customEventsSchema());
  await afterRefusal(run.deps.warn, 'custom_events', async (restarted) => {
    if (restarted) delete run.bookmarks.custom_events;
    await customEventsLane(run);
  });
}

async function customEventsLane(run: TapRun): Promise<void> {
  const { deps, opts } = run;
  const prior = run.bookmarks.custom_events;
  // The window's start goes with the first call only; a later run's cursor carries it. A rewind (an SDK bookmark) sets it.
  const since = prior?.since ?? opts.rewind?.custom_events ?? opts.startDate ?? '1970-01-01T00:00:00.000Z';
  const base = { account: deps.account, replication_key: 'occurredAt' as const, since };
  const format = eventFormat(run, 'custom_events');
  await runLane({
    ...laneBase(run, 'custom_events'),
    target: { kind: 'custom-events', window: { since } },
    start: prior ?? NEW_LANE,
    limit: run.limit('custom-events'),
    format,
    writeHeld: async (held) => {
      for (const { row, text } of held) await format.held(row, text);
    },
    commit: (pos) => {
      run.bookmarks.custom_events = { ...pos, ...base };
      return run.commit();
    },
  });
}

export async function syncEmailEvents(run: TapRun): Promise<void> {
  const { deps, opts } = run;
  await writeSchema(run, 'email_events', emailEventsSchema());
  const types: Partial<Record<string, LanePosition>> = { ...run.bookmarks.email_events?.types };
  // --test: one request, of the first type.
  for (const type of opts.test ? EMAIL_EVENT_TYPES.slice(0, 1) : EMAIL_EVENT_TYPES) {
    const label = `email_events ${type}`;
    await afterRefusal(deps.warn, label, async (restarted) => {
      if (restarted) delete types[type];
      const prior = types[type];
      // start_date (or a rewind) applies to a type's first run only: older events are read and not emitted.
      const since = prior ? undefined : (opts.rewind?.email_events ?? opts.startDate);
      const format = eventFormat(run, 'email_events', since === undefined ? undefined : Date.parse(since));
      await runLane({
        ...laneBase(run, label),
        target: { kind: 'email-events', emailType: type },
        start: prior ?? NEW_LANE,
        limit: run.limit('email-events'),
        format,
        writeHeld: async (held) => {
          for (const { row, text } of held) await format.held(row, text);
        },
        commit: (pos) => {
          types[type] = pos;
          run.bookmarks.email_events = { account: deps.account, replication_key: 'occurredAt', types: { ...types } };
          return run.commit();
        },
      });
    });
  }
}
