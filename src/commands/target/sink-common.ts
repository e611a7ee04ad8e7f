import type { ColumnFlagValues } from '../../batch/columns/column-flags.js';
import { ColumnResolver, type ColumnRules } from '../../batch/columns/column-resolver.js';
import type { Prepared } from '../../batch/file-run.js';
import { noticesOf, stateDirOf } from '../../cmdutil/context-deps.js';
import { identifierKey } from '../../cmdutil/membership-sync.js';
import type { ContactIdentifier } from '../../endpoints/identifiers.js';
import type { InputRow } from '../../input/input-rows.js';
import type { Context } from '../../context.js';
import { Ledger } from '../../ledger/ledger.js';
import { ledgerJob } from '../../ledger/ledger-job.js';
import type { StreamSchema } from '../../target/stream-sink.js';
import { mapPairs } from '../../target/target-config.js';

/**
 * The ledger of a stream's job, opened for this run (locked when it sends): the account, `target
 * <kind>`, what it writes to, and `<stream>:<key properties>` (docs/target.md, "The ledger").
 */
export function openStreamLedger(ctx: Context, schema: StreamSchema, target?: string): Promise<Ledger> {
  return ctx.credentials().then((credentials) => {
    const column = `${schema.stream}:${schema.keyProperties.join(',') || 'identifier'}`;
    const job = ledgerJob(credentials, `target ${schema.config.kind}`, target, column);
    const deps = { stateDir: stateDirOf(ctx), notices: noticesOf(ctx), clock: ctx.clock };
    return Ledger.open(deps, job, schema.mode === 'send');
  });
}

/**
 * A stream's column flags: its map (a default stream's only for the properties its SCHEMA has),
 * and left out: its key properties that name nothing by their own name, or a contact only when
 * they hold its UUID (`id`, `contactId`: the source's own ids), since they key the record and
 * `map` sends one when asked; and the Singer SDK's `_sdc_*` metadata. `more`: the kind's own maps.
 */
export function streamColumnFlags(schema: StreamSchema, rules: ColumnRules, more: string[] = []): ColumnFlagValues {
  const has = new Set(schema.properties);
  const own = mapPairs(schema.config.map).filter(
    (pair) => schema.config.byDefault === undefined || has.has(columnOf(pair)),
  );
  const map = [...own, ...more];
  const mapped = new Set(map.map(columnOf));
  const probe = new ColumnResolver(rules);
  const keyLeftOut = (p: string) => {
    const target = probe.resolve(p).target;
    return target.kind === 'unknown' || (target.kind === 'key' && target.lenient === true);
  };
  const left = [...schema.keyProperties.filter(keyLeftOut), ...schema.properties.filter((p) => p.startsWith('_sdc_'))];
  return { map, ignoreColumn: [...new Set(left)].filter((p) => !mapped.has(p)) };
}

/** The column of a `COLUMN=TARGET` pair. */
export function columnOf(pair: string): string {
  return pair.slice(0, pair.lastIndexOf('=')).trim();
}

/** A plan's change line of the stream, into the report; none unless planning. */
export function changeWriter(schema: StreamSchema): ((line: Record<string, unknown>) => void) | undefined {
  const change = schema.change;
  return change && ((line) => change({ type: 'change', stream: schema.stream, ...line }));
}

/** A contact's row keyed by the stream's key properties, else by the identifier it sends (the membership syncs' key). */
export function keyOrIdentifier(
  schema: StreamSchema,
  prepare: (row: InputRow, columns: ColumnResolver) => Prepared<ContactIdentifier>,
): (row: InputRow, columns: ColumnResolver) => string | undefined {
  return (row, columns) => {
    const own = schema.keyOf(row);
    if (own !== undefined) return own;
    const prepared = prepare(row, columns);
    return prepared.invalid || prepared.payload === undefined ? undefined : identifierKey(prepared.payload);
  };
}
