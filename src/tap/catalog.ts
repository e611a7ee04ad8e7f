import { z } from 'zod';
import { UsageError } from '../errors.js';
import { describeProblem, readJsonDocument } from '../singer/json-file.js';
import type { JsonSchema } from './schemas.js';
import { isStreamName, STREAM_NAMES, STREAMS, type StreamName } from './stream-table.js';

/** One stream of a catalog, as discovery writes it (Singer catalog, Meltano's metadata). */
function catalogEntry(name: StreamName, schema: JsonSchema) {
  const { key, replicationKey, method } = STREAMS[name];
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const replication = replicationKey
    ? { 'valid-replication-keys': [replicationKey], 'replication-key': replicationKey }
    : {};
  return {
    tap_stream_id: name,
    stream: name,
    schema,
    key_properties: [key],
    ...(replicationKey ? { replication_key: replicationKey } : {}),
    replication_method: method,
    metadata: [
      {
        breadcrumb: [],
        metadata: {
          inclusion: 'available',
          'selected-by-default': true,
          'table-key-properties': [key],
          ...replication,
          'forced-replication-method': method,
        },
      },
      ...properties.map((p) => ({
        breadcrumb: ['properties', p],
        metadata: {
          inclusion: p === key || p === replicationKey ? 'automatic' : 'available',
          'selected-by-default': true,
        },
      })),
    ],
  };
}

/** The catalog `--discover` prints: every stream with its schema. */
export function discoveredCatalog(schemas: Record<StreamName, JsonSchema>): { streams: unknown[] } {
  return { streams: STREAM_NAMES.map((name) => catalogEntry(name, schemas[name])) };
}

const metadataEntry = z.looseObject({
  breadcrumb: z.array(z.union([z.string(), z.number()])),
  metadata: z.looseObject({}),
});
const CATALOG = z.looseObject({
  streams: z.array(
    z.looseObject({
      tap_stream_id: z.string(),
      stream: z.string().optional(),
      metadata: z.array(metadataEntry).optional(),
      schema: z.looseObject({}).optional(),
    }),
  ),
});

/** What a catalog selects: streams, and per stream the properties it deselects. */
interface Selection {
  streams: Set<StreamName>;
  /** Properties whose entry says `selected: false` (never a key or replication key: `automatic`). */
  excluded: Partial<Record<StreamName, Set<string>>>;
}

/**
 * The streams a catalog selects, as the Singer SDK reads its metadata: the stream's own entry
 * (breadcrumb []) `selected` when set, else `selected-by-default`; `inclusion: automatic`
 * always, `unsupported` never; the legacy `schema.selected` too. A property entry
 * (breadcrumb ["properties", name]) that says `selected: false` leaves that property out.
 * Streams the tap does not have are named in a warning and skipped.
 */
export async function readSelection(
  flag: string,
  path: string,
  warn: (message: string) => void,
  signal?: AbortSignal,
): Promise<Selection> {
  const doc = await readJsonDocument(flag, path, signal);
  const hint = 'give the catalog that `tap-cnv --discover` wrote (or Meltano made from it)';
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || !Object.hasOwn(doc, 'streams')) {
    const has = doc !== null && typeof doc === 'object' ? ` (it has ${Object.keys(doc).slice(0, 5).join(', ')})` : '';
    throw new UsageError(`${flag} ${path}: not a catalog: no streams${has}`, hint, 'not_a_catalog');
  }
  const parsed = CATALOG.safeParse(doc);
  if (!parsed.success) throw new UsageError(describeProblem(flag, path, parsed.error.issues[0], doc), hint);
  const selection: Selection = { streams: new Set(), excluded: {} };
  for (const stream of parsed.data.streams) {
    const name = stream.tap_stream_id;
    if (!isStreamName(name)) {
      warn(`${flag} ${path}: no stream "${name}" in this tap (streams: ${STREAM_NAMES.join(', ')}); skipped`);
      continue;
    }
    const own = stream.metadata?.find((m) => m.breadcrumb.length === 0)?.metadata ?? {};
    if (!isSelected(own, stream.schema)) continue;
    selection.streams.add(name as StreamName);
    const { key, replicationKey } = STREAMS[name as StreamName];
    const out = (stream.metadata ?? []).filter(
      (m) =>
        m.breadcrumb.length === 2 &&
        m.breadcrumb[0] === 'properties' &&
        m.metadata.selected === false &&
        m.metadata.inclusion !== 'automatic',
    );
    const names = out.map((m) => String(m.breadcrumb[1])).filter((p) => p !== key && p !== replicationKey);
    if (names.length > 0) selection.excluded[name as StreamName] = new Set(names);
  }
  return selection;
}

function isSelected(md: Record<string, unknown>, schema: Record<string, unknown> | undefined): boolean {
  if (md.inclusion === 'unsupported') return false;
  if (md.inclusion === 'automatic') return true;
  if (typeof md.selected === 'boolean') return md.selected;
  if (typeof schema?.selected === 'boolean') return schema.selected;
  return md['selected-by-default'] === true;
}
