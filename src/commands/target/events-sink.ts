import { perRowSender } from '../../batch/per-row.js';
import type { FileRowsSpec } from '../../batch/file-run.js';
import type { Context } from '../../context.js';
import type { TrackEventBody } from '../../endpoints/events.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { identifierColumns } from '../../batch/row-check.js';
import { requestOf } from '../../http/endpoint.js';
import type { InputRow } from '../../input/input-rows.js';
import { stringifyJson } from '../../lib/exact-number.js';
import { trackedRows } from '../../ledger/tracked-rows.js';
import type { StreamSchema, StreamSink } from '../../target/stream-sink.js';
import { idColumnEventId, prepareTrackRow, TRACK_COLUMNS } from '../events/track-file.js';
import { TRACK_FILE_DEFAULTS } from '../events/track-flags.js';
import { changeWriter, openStreamLedger, streamColumnFlags } from './sink-common.js';

/**
 * A stream of events, as `events track --file F --id-column COL` sends them: one request each,
 * its clientEventId derived from the stream and the record's key (docs/ledger.md, "Events"), so a
 * record sent again (a rerun from an earlier state, a lost ledger) is the event the API has
 * (`duplicate`); the ledger sends each key once. The event's name is the stream's `event`, or the
 * property `event_property` names (else one resolving to `event`).
 */
export async function eventsSink(ctx: Context, schema: StreamSchema): Promise<StreamSink<TrackEventBody>> {
  const { config } = schema;
  const ledger = await openStreamLedger(ctx, schema);
  const defaults: Record<string, unknown> = config.event === undefined ? {} : { event: config.event };
  const key = (row: InputRow) => schema.keyOf(row) ?? stringifyJson(row.values ?? {});
  const base: FileRowsSpec<TrackEventBody> = {
    prepare: (row, columns) => prepareTrackRow(row, defaults, columns, (r) => idColumnEventId(schema.stream, key(r))),
    request: (items) => requestOf(ENDPOINTS.trackEvent, { body: items[0].payload }),
    send: perRowSender(async (body: TrackEventBody, signal) => {
      const result = await (await ctx.http()).call(ENDPOINTS.trackEvent, { body, signal });
      return { status: result.duplicate ? 'duplicate' : 'tracked', id: result.cnvContactId };
    }),
  };
  const change = changeWriter(schema);
  const { rows } = trackedRows(base, {
    ledger,
    key,
    mode: schema.mode,
    sentOnce: true,
    onSend: change && ((r) => change({ action: 'add', line: r.line, key: r.key, event: r.payload.event })),
  });
  const more = config.event_property === undefined ? [] : [`${config.event_property}=event`];
  return {
    kind: 'events',
    endpoint: TRACK_COLUMNS.endpoint,
    columns: { rules: TRACK_COLUMNS, identifierColumns: identifierColumns(defaults, ['userId', 'email']) },
    columnFlags: streamColumnFlags(schema, TRACK_COLUMNS, more),
    rows,
    chunkSize: 1,
    concurrency: TRACK_FILE_DEFAULTS.concurrency,
    ledger,
    key: (row) => key(row),
  };
}
