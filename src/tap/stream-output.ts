import { UsageError } from '../errors.js';
import { flattenRecord, flattenSchema, LearnedLeaves, type FlattenOptions } from './flatten.js';
import { evaluate, propertiesRead, type Expression } from './map-expression.js';
import type { JsonSchema } from './schemas.js';
import type { OutputSpec, StreamMap } from './stream-maps.js';

type Json = Record<string, unknown>;

/** What a SCHEMA message of an output carries. */
interface OutputSchema {
  stream: string;
  schema: JsonSchema;
  keyProperties: string[];
  bookmarkProperties: string[];
}

/**
 * One stream as the run writes it (docs/singer.md, "Stream maps"): a tap stream under its name,
 * its alias or a copy's name, its records mapped (`stream_maps`) then flattened
 * (`flattening_enabled`), in that order, as the Meltano SDK does.
 */
export class StreamOutput {
  readonly name: string;
  private readonly map: StreamMap | undefined;
  private declared: JsonSchema = { type: ['object'], properties: {} };
  private keys: string[] = [];
  private bookmarks: string[] = [];
  private readonly leaves = new LearnedLeaves();

  constructor(
    spec: OutputSpec,
    private readonly source: string,
    private readonly flat: FlattenOptions | undefined,
    private readonly config: Readonly<Json>,
  ) {
    this.name = spec.name;
    this.map = spec.map;
  }

  /** True when records go out as the tap makes them (no map, no flattening, the stream's own name). */
  get plain(): boolean {
    return this.map === undefined && this.flat === undefined && this.name === this.source;
  }

  /** Whether records are flattened (their objects' members learned as properties). */
  get flattens(): boolean {
    return this.flat !== undefined;
  }

  /** Takes the stream's schema (its selected properties); a map that reads or keys a property it lacks is refused (exit 2). */
  use(schema: JsonSchema, keys: string[], bookmarks: string[]): void {
    let mapped = schema;
    this.keys = keys;
    if (this.map) [mapped, this.keys] = mapSchema(this.map, schema, keys, this.source);
    const properties = (mapped.properties ?? {}) as Json;
    this.bookmarks = bookmarks.filter((b) => Object.hasOwn(properties, b));
    this.declared = this.flat ? flattenSchema(mapped, this.flat) : mapped;
  }

  /** The SCHEMA to write now (the declared properties, then those learned from records). */
  schema(): OutputSchema {
    return {
      stream: this.name,
      schema: this.leaves.addTo(this.declared),
      keyProperties: this.keys,
      bookmarkProperties: this.bookmarks,
    };
  }

  /** The record mapped and flattened. */
  shape(record: Json): Json {
    const mapped = this.map ? mapRecord(this.map, record, this.keys, this.name, this.source, this.config) : record;
    return this.flat ? flattenRecord(mapped, this.flat) : mapped;
  }

  /** Whether a shaped record has a flattened property (or a type of one) the schema does not have yet. */
  isNew(shaped: Json): boolean {
    return this.flat !== undefined && this.leaves.isNew(shaped, this.declared.properties as Json);
  }

  /** Learns a shaped record's new flattened properties; true when the schema grew. */
  learn(shaped: Json): boolean {
    return this.flat !== undefined && this.leaves.learn(shaped, this.declared.properties as Json);
  }
}

/** A stream's schema without the properties the catalog deselects (changed in place). */
export function withoutProperties(schema: JsonSchema, names: Iterable<string> | undefined): JsonSchema {
  for (const name of names ?? []) delete (schema.properties as Json)[name];
  return schema;
}

/** The schema after the map, and its key properties (the SDK's rules: a new property typed by what sets it). */
function mapSchema(map: StreamMap, schema: JsonSchema, keys: string[], source: string): [JsonSchema, string[]] {
  const raw = (schema.properties ?? {}) as Json;
  const properties: Json = Object.create(null) as Json;
  for (const [name, value] of Object.entries(raw)) if (map.keepOthers || keys.includes(name)) properties[name] = value;
  for (const op of map.ops) {
    if (op.drop) {
      delete properties[op.name];
      continue;
    }
    for (const name of propertiesRead(op.expr))
      if (!Object.hasOwn(raw, name))
        throw new UsageError(
          `${map.where}.${op.name}: ${JSON.stringify(op.text)} reads "${name}", ` +
            `which stream ${source} does not have (or the catalog deselects)`,
          'see `tap-cnv --discover` for its properties',
          'unsupported_setting',
        );
    properties[op.name] = typeOf(op.expr, op.name, raw, properties);
  }
  const keyProperties = map.keyProperties ?? keys;
  for (const key of keyProperties)
    if (!Object.hasOwn(properties, key))
      throw new UsageError(
        `${map.where}.__key_properties__: "${key}" is not a property of the mapped stream ${source}`,
        'name properties the map keeps or sets',
        'unsupported_setting',
      );
  return [{ ...schema, properties }, keyProperties];
}

/** The schema of a property a map sets: a copy keeps its source's, anything else is a string. */
function typeOf(expr: Expression, name: string, raw: Json, properties: Json): unknown {
  if (expr.kind === 'property') return raw[expr.name];
  if (expr.kind === 'self') return properties[name] ?? raw[name] ?? { type: ['string', 'null'] };
  if (expr.kind === 'text' || expr.kind === 'stream' || expr.kind === 'original') return { type: ['string'] };
  return { type: ['string', 'null'] };
}

/** The record after the map: its properties (or only its keys, after `__else__: null`), then each operation in order. */
function mapRecord(map: StreamMap, record: Json, keys: string[], stream: string, original: string, config: Json): Json {
  const out: Json = Object.create(null) as Json;
  for (const name in record) if (map.keepOthers || keys.includes(name)) out[name] = record[name];
  for (const op of map.ops) {
    if (op.drop) delete out[op.name];
    else {
      const self = Object.hasOwn(record, op.name) ? record[op.name] : null;
      out[op.name] = evaluate(op.expr, { record, self, stream, original, config });
    }
  }
  return out;
}
