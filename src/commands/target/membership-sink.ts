import { AUDIENCE_SYNC, CAMPAIGN_SYNC, identifierKey, syncRemovals } from '../../cmdutil/membership-sync.js';
import { membershipRows } from '../../cmdutil/membership-add.js';
import { MAX_BATCH_CONTACTS } from '../../endpoints/endpoints.js';
import type { ContactIdentifier } from '../../endpoints/identifiers.js';
import type { Context } from '../../context.js';
import { trackedRows } from '../../ledger/tracked-rows.js';
import type { StreamSchema, StreamSink } from '../../target/stream-sink.js';
import { changeWriter, keyOrIdentifier, openStreamLedger, streamColumnFlags } from './sink-common.js';

/** Requests of adds in flight at once, as the syncs send them. */
const CONCURRENCY = 8;

/**
 * A stream of members, as `audience sync` / `campaigns sync` send them: adds of the contacts the
 * job has not added (1,000 a request), each row keyed by the stream's key (else by the identifier
 * it sends) and decided against the job's ledger. An audience's removals are the run's
 * (src/target/lane-mirror.ts: after a complete pass, or a record marked deleted); a campaign
 * never removes (the API cannot).
 */
export async function membershipSink(
  ctx: Context,
  schema: StreamSchema,
  maxRemovals: number | undefined,
): Promise<StreamSink<ContactIdentifier>> {
  const { config } = schema;
  const audience = config.kind === 'audience';
  const targetId = (audience ? config.audience_id : config.campaign_id)!;
  const target = audience ? AUDIENCE_SYNC : CAMPAIGN_SYNC;
  const ledger = await openStreamLedger(ctx, schema, targetId);
  const base = membershipRows(ctx, target, targetId);
  const change = changeWriter(schema);
  const { rows } = trackedRows(base, {
    ledger,
    key: (row, prepared) => schema.keyOf(row) ?? identifierKey(prepared.payload),
    mode: schema.mode,
    keepReplaced: true,
    onSend:
      change &&
      ((r) => change({ action: r.kind === 'new' ? 'add' : 'update', line: r.line, key: r.key, contact: r.identifier })),
  });
  const remove = target.remove;
  return {
    kind: config.kind,
    endpoint: base.columns.rules.endpoint,
    columns: base.columns,
    columnFlags: streamColumnFlags(schema, base.columns.rules),
    rows,
    chunkSize: MAX_BATCH_CONTACTS,
    concurrency: CONCURRENCY,
    ledger,
    key: keyOrIdentifier(schema, base.prepare),
    maxRemovals: config.max_removals ?? maxRemovals,
    removals: remove && syncRemovals(ctx, remove, targetId, CONCURRENCY),
  };
}
