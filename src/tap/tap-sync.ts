import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import { syncContacts } from './contacts-stream.js';
import { syncCustomEvents, syncEmailEvents } from './events-stream.js';
import { syncCampaigns, syncFields } from './list-streams.js';
import { SingerOut } from './messages.js';
import type { TapDeps } from './run-deps.js';
import { streamSchemas } from './discover.js';
import { StreamOutput, withoutProperties } from './stream-output.js';
import { STREAM_NAMES, STREAMS, type StreamName } from './stream-table.js';
import { StreamWriter } from './stream-writer.js';
import { streamError } from './tap-errors.js';
import { TapMeter } from './tap-metrics.js';
import type { TapRun, TapRunOptions } from './tap-run.js';

const SYNC: Record<StreamName, (run: TapRun) => Promise<void>> = {
  contacts: syncContacts,
  custom_events: syncCustomEvents,
  email_events: syncEmailEvents,
  fields: syncFields,
  campaigns: syncCampaigns,
};

/**
 * Syncs the selected streams in order (contacts, custom_events, email_events, fields, campaigns):
 * a SCHEMA first, then each page's RECORDs and a STATE after them; a final STATE always (none
 * under --test). Streams not selected, or removed by stream_maps, are not read at all; their
 * bookmarks in the given state are carried over unchanged. Each stream ends with its summary line.
 */
export async function sync(deps: TapDeps, opts: TapRunOptions): Promise<void> {
  const out = new SingerOut(deps.stdout);
  const extractedAt = new Date(deps.now()).toISOString();
  const meter = new TapMeter(deps.info, deps.now, () => out.records);
  meter.watch(deps.http);
  // A long sync keeps its memory where a short one's is, as an export does.
  const checkHeap = deps.holdHeap?.() ?? (() => {});
  const writers = new Map<StreamName, StreamWriter>();
  const run: TapRun = {
    deps,
    opts,
    out,
    bookmarks: { ...opts.bookmarks },
    extractedAt,
    limit: (kind) =>
      opts.test
        ? 1
        : Math.max(1, Math.min(EXPORT_PAGE_LIMITS[kind].max, opts.pageSize ?? EXPORT_PAGE_LIMITS[kind].default)),
    commit: () => (opts.test ? Promise.resolve() : out.state({ bookmarks: run.bookmarks })),
    afterPage: (fresh) => {
      checkHeap();
      meter.page(fresh);
    },
    writer: (stream) => writers.get(stream)!,
    meter,
  };
  for (const stream of streamsToRead(opts)) {
    const outputs = outputsOf(stream, opts);
    writers.set(stream, new StreamWriter(out, outputs, extractedAt));
    meter.start(stream);
    try {
      await SYNC[stream](run);
    } catch (err) {
      throw streamError(err, stream, deps.signal);
    }
    meter.end(outputs.length);
  }
  await run.commit();
}

/** The streams a run reads: selected, and not removed by stream_maps. */
function streamsToRead(opts: TapRunOptions): StreamName[] {
  return STREAM_NAMES.filter((s) => opts.selected.has(s) && (opts.maps?.outputs(s).length ?? 1) > 0);
}

/** A stream's outputs: itself, or what stream_maps make of it (an alias, copies), flattened or not. */
function outputsOf(stream: StreamName, opts: TapRunOptions): StreamOutput[] {
  return (opts.maps?.outputs(stream) ?? [{ name: stream }]).map(
    (spec) => new StreamOutput(spec, stream, opts.flatten, opts.maps?.config ?? {}),
  );
}

/** --test schema: the SCHEMA of each stream a run would read (only the CONTACT field definitions are requested). */
export async function writeSchemas(deps: TapDeps, opts: TapRunOptions): Promise<void> {
  const out = new SingerOut(deps.stdout);
  const streams = streamsToRead(opts);
  const schemas = await streamSchemas(deps, streams.includes('contacts'));
  for (const stream of streams) {
    const writer = new StreamWriter(out, outputsOf(stream, opts), '');
    const { key, replicationKey } = STREAMS[stream];
    try {
      await writer.schema(
        withoutProperties(schemas[stream], opts.excluded[stream]),
        [key],
        replicationKey ? [replicationKey] : [],
      );
    } catch (err) {
      throw streamError(err, stream, deps.signal);
    }
  }
}
