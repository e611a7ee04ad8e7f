import { UsageError } from '../errors.js';
import { compileExpression, configRead, evaluate, type Expression } from './map-expression.js';
import { STREAM_NAMES, STREAMS, type StreamName } from './stream-table.js';

// `stream_maps` as the Meltano SDK reads it (docs/singer.md, "Stream maps"): per stream, a map
// (properties dropped with null or "__NULL__", set by an expression, `__else__: null`,
// `__key_properties__`), the stream renamed (`__alias__`), copied (`__source__`) or removed
// (null); `__else__: null` at the top removes the streams no entry names. Every other form is
// refused by name when the config is read (exit 2): nothing is accepted and then ignored.

const NULL = '__NULL__';
const isNull = (v: unknown): boolean => v === null || v === NULL;

/** One property operation of a map, in the map's order. */
type PropertyOp = { name: string; drop: true } | { name: string; drop?: false; expr: Expression; text: string };

/** A stream's map (absent: the record as it is). */
export interface StreamMap {
  ops: PropertyOp[];
  /** False after `__else__: null`: only the key properties and the properties the map sets. */
  keepOthers: boolean;
  /** `__key_properties__`: the keys instead of the stream's (null or []: none). */
  keyProperties?: string[];
  /** Where the map is, for messages: `--config FILE: stream_maps.contacts`. */
  where: string;
}

/** A stream as the run writes it: its name (an alias, or a copy's) and its map. */
export interface OutputSpec {
  name: string;
  map?: StreamMap;
}

/** The settings' stream maps, read and checked. */
export interface StreamMaps {
  /** The outputs of a stream, in order (none: the stream is removed, so not read at all). */
  outputs(stream: StreamName): OutputSpec[];
  /** `stream_map_config`: what `config['name']` reads. */
  config: Readonly<Record<string, unknown>>;
  /** Whether any map or alias is configured (false: every stream as it is). */
  readonly any: boolean;
}

type Outputs = Record<StreamName, OutputSpec[]>;

/** Reads and checks `stream_maps` and `stream_map_config` (the config's members). Warnings name entries that match no stream. */
export function readStreamMaps(
  file: string,
  maps: Record<string, unknown> | undefined,
  config: Record<string, unknown> | undefined,
  warn: (message: string) => void,
): StreamMaps {
  const mapConfig = config ?? {};
  const entries = Object.entries(maps ?? {});
  const at = (where: string, why: string) => new UsageError(`--config ${file}: ${where}: ${why}`, HINT, CODE);
  let removeOthers = false;
  for (const [key, def] of entries) {
    if (key === '__else__') {
      if (!isNull(def)) throw at('stream_maps.__else__', 'only null (or "__NULL__") is supported');
      removeOthers = true;
    } else if (key.startsWith('__')) throw at(`stream_maps.${key}`, 'not a stream map option');
  }
  // Per stream: the same-named output (undefined: removed) and the copies (__source__).
  const primary = {} as Record<StreamName, OutputSpec | undefined>;
  const copies = {} as Outputs;
  for (const stream of STREAM_NAMES)
    [primary[stream], copies[stream]] = [removeOthers ? undefined : { name: stream }, []];
  const used = new Set<string>();
  for (const [key, def] of entries) {
    if (key === '__else__') continue;
    for (const stream of STREAM_NAMES) {
      const spec = withFile(file, () => matchEntry(key, def, stream, mapConfig));
      if (spec === undefined) continue;
      used.add(key);
      if (spec.output?.map) spec.output.map.where = `--config ${file}: stream_maps.${key}`;
      if (spec.primary) primary[stream] = spec.output;
      else if (spec.output) copies[stream].push(spec.output);
    }
  }
  for (const [key] of entries)
    if (key !== '__else__' && !used.has(key))
      warn(
        `--config ${file}: stream_maps.${key}: no stream of this tap matches it (streams: ${STREAM_NAMES.join(', ')}); ignored`,
      );
  return {
    outputs: (stream) => [...(primary[stream] ? [primary[stream]] : []), ...copies[stream]],
    config: mapConfig,
    any: entries.length > 0,
  };
}

const HINT = 'see docs/singer.md, "Stream maps"';
const CODE = 'unsupported_setting';

/** A refusal of the entries below, naming the config file. */
function withFile<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UsageError && err.code === CODE)
      throw new UsageError(`--config ${file}: ${err.message}`, HINT, CODE);
    throw err;
  }
}

/** What one entry of stream_maps does to `stream`, or undefined when it does not apply to it. */
function matchEntry(
  key: string,
  def: unknown,
  stream: StreamName,
  mapConfig: Record<string, unknown>,
): { primary: boolean; output: OutputSpec | undefined } | undefined {
  const where = `stream_maps.${key}`;
  if (!isNull(def) && (def === null || typeof def !== 'object' || Array.isArray(def)))
    throw refused(where, 'a stream map is an object, or null (or "__NULL__") to remove the stream');
  const body = isNull(def) ? undefined : (def as Record<string, unknown>);
  let source = key;
  let alias = key;
  let primary = true;
  if (body && Object.hasOwn(body, '__source__')) {
    if (typeof body.__source__ !== 'string') throw refused(`${where}.__source__`, 'the name of a stream');
    source = body.__source__;
    primary = false;
  } else if (body && Object.hasOwn(body, '__alias__')) {
    if (typeof body.__alias__ !== 'string') throw refused(`${where}.__alias__`, 'a stream name or expression');
    alias = aliasOf(body.__alias__, stream);
  }
  if (source !== stream) {
    if (!globMatches(source, stream, where)) return undefined;
    if (alias === source) alias = stream;
  }
  if (!body) return { primary, output: undefined };
  return { primary, output: { name: alias, map: streamMap(body, stream, where, mapConfig) } };
}

/** `__alias__`: an expression of `__stream_name__` (`__stream_name__ + '_v2'`), else the name as written (the SDK's fallback). */
function aliasOf(text: string, stream: string): string {
  try {
    const expr = compileExpression(text);
    if (expr.kind === 'property') return text;
    const value = evaluate(expr, { record: {}, self: null, stream, original: stream, config: {} });
    return typeof value === 'string' ? value : text;
  } catch {
    return text;
  }
}

/** fnmatch's `*` and `?` (a `[` is refused: its sets are not supported). */
function globMatches(pattern: string, name: string, where: string): boolean {
  if (!/[*?[]/.test(pattern)) return false;
  if (pattern.includes('[')) throw refused(where, 'a stream pattern takes * and ? only');
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return re.test(name);
}

/** The map of a stream map object: its operations, in order, checked. */
function streamMap(
  body: Record<string, unknown>,
  stream: StreamName,
  where: string,
  mapConfig: Record<string, unknown>,
): StreamMap {
  const map: StreamMap = { ops: [], keepOthers: true, where };
  for (const [name, value] of Object.entries(body)) {
    const at = `${where}.${name}`;
    if (name === '__source__' || name === '__alias__') continue;
    if (name === '__else__') {
      if (!isNull(value)) throw refused(at, 'only null (or "__NULL__") is supported');
      map.keepOthers = false;
    } else if (name === '__key_properties__') {
      if (value !== null && !(Array.isArray(value) && value.every((v) => typeof v === 'string')))
        throw refused(at, 'a list of property names, or null for none');
      map.keyProperties = value === null ? [] : (value as string[]);
    } else if (name === '__filter__') {
      throw refused(at, 'record filters are not supported by this tap (filter in the warehouse)');
    } else if (/^__.*__$/.test(name)) {
      throw refused(at, 'not a stream map option (supported: __alias__, __source__, __else__, __key_properties__)');
    } else if (isNull(value)) {
      map.ops.push({ name, drop: true });
    } else if (typeof value === 'string') {
      map.ops.push({ name, expr: expressionAt(at, value, mapConfig), text: value });
    } else {
      throw refused(at, 'an expression (a string), or null (or "__NULL__") to drop the property');
    }
  }
  const keys = map.keyProperties ?? [STREAMS[stream].key];
  for (const op of map.ops)
    if (op.drop && keys.includes(op.name))
      throw refused(
        `${where}.${op.name}`,
        `${op.name} is a key property of ${stream}: name other keys with __key_properties__ (or null for none) to drop it`,
      );
  return map;
}

function expressionAt(at: string, text: string, mapConfig: Record<string, unknown>): Expression {
  let expr: Expression;
  try {
    expr = compileExpression(text);
  } catch (err) {
    throw refused(at, `${JSON.stringify(text)}: ${(err as Error).message}`);
  }
  for (const name of configRead(expr))
    if (!Object.hasOwn(mapConfig, name))
      throw refused(at, `${JSON.stringify(text)} reads config['${name}'], which stream_map_config does not set`);
  return expr;
}

function refused(where: string, why: string): UsageError {
  return new UsageError(`${where}: ${why}`, HINT, CODE);
}
