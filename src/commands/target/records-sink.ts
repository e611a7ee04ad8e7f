import { ColumnResolver } from '../../batch/columns/column-resolver.js';
import { recordsDepsOf } from '../../cmdutil/context-deps.js';
import { RECORDS_DEFAULTS } from '../../cmdutil/records-flags.js';
import type { Context } from '../../context.js';
import type { RecordInput } from '../../endpoints/records.js';
import { trackedRows } from '../../ledger/tracked-rows.js';
import { DEDUP_KEY } from '../../records/prepare.js';
import { recordsFileSpec } from '../../records/records-file.js';
import type { StreamSchema, StreamSink } from '../../target/stream-sink.js';
import { mapPairs } from '../../target/target-config.js';
import { changeWriter, columnOf, openStreamLedger, streamColumnFlags } from './sink-common.js';

/**
 * A stream of custom-object records, as `records sync` sends them: 200 a request, the values
 * typed by the object's field definitions, a record sent only when its values differ from what
 * the job's ledger says was sent. The record's clientDedupKey is the property resolving to it,
 * else the stream's one key property.
 */
export async function recordsSink(ctx: Context, schema: StreamSchema): Promise<StreamSink<RecordInput>> {
  const customObjectId = schema.config.custom_object_id!;
  const ledger = await openStreamLedger(ctx, schema, customObjectId);
  const runOptions = {
    concurrency: RECORDS_DEFAULTS.concurrency,
    chunkSize: RECORDS_DEFAULTS.maxChunkSize,
    mode: schema.mode,
    columns: {},
  };
  const { spec } = await recordsFileSpec(recordsDepsOf(ctx), {
    customObjectId,
    file: '-',
    command: 'target',
    runOptions,
    emptyCells: 'skip',
  });
  const change = changeWriter(schema);
  const { rows } = trackedRows(spec, {
    ledger,
    key: (_row, prepared) => prepared.payload.clientDedupKey,
    mode: schema.mode,
    onSend: change && ((r) => change({ action: r.kind === 'new' ? 'add' : 'update', line: r.line, key: r.key })),
  });
  const columnFlags = streamColumnFlags(
    schema,
    spec.columns.rules,
    dedupMap(schema, new ColumnResolver(spec.columns.rules)),
  );
  return {
    kind: 'records',
    endpoint: spec.columns.rules.endpoint,
    columns: spec.columns,
    columnFlags,
    rows,
    chunkSize: RECORDS_DEFAULTS.maxChunkSize,
    concurrency: RECORDS_DEFAULTS.concurrency,
    ledger,
    key: (row, columns) => {
      const own = schema.keyOf(row);
      if (own !== undefined) return own;
      const prepared = spec.prepare(row, columns);
      return prepared.invalid || prepared.payload === undefined ? undefined : prepared.payload.clientDedupKey;
    },
  };
}

/** The stream's one key property sent as clientDedupKey, when neither the map nor another property gives it. */
function dedupMap(schema: StreamSchema, probe: ColumnResolver): string[] {
  const pairs = mapPairs(schema.config.map);
  if (pairs.some((pair) => pair.slice(pair.lastIndexOf('=') + 1).trim() === DEDUP_KEY)) return [];
  const mapped = new Set(pairs.map(columnOf));
  const given = schema.properties.some((p) => {
    if (mapped.has(p) || schema.keyProperties.includes(p)) return false;
    const t = probe.resolve(p).target;
    return t.kind === 'key' && t.key === DEDUP_KEY;
  });
  return !given && schema.keyProperties.length === 1 ? [`${schema.keyProperties[0]}=${DEDUP_KEY}`] : [];
}
