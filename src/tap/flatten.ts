import { isExactNumber, stringifyJson } from '../lib/exact-number.js';
import type { JsonSchema } from './schemas.js';

// `flattening_enabled` and `flattening_max_depth` as the Meltano SDK flattens (docs/singer.md,
// "Flattening"): an object's members become properties of their own, `data__plan`, down to the
// depth; an object deeper than that, and every array, is written as its JSON text. The SDK
// flattens only what the schema declares; the objects of this API (custom events' `data`,
// contacts' `unresolvedFields`) declare no members, so their members are learned from the
// records: a member seen for the first time adds its property to the schema (a new SCHEMA
// before that record), typed by the values seen.

export interface FlattenOptions {
  maxDepth: number;
  separator: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !isExactNumber(v);

/** The record flattened: members of objects down to the depth as properties of their own. */
export function flattenRecord(record: Json, opts: FlattenOptions): Json {
  const out: Json = Object.create(null) as Json;
  const walk = (node: Json, prefix: string, level: number) => {
    for (const name in node) {
      const key = prefix === '' ? name : prefix + opts.separator + name;
      const value = node[name];
      if (isObject(value) && level < opts.maxDepth) walk(value, key, level + 1);
      else
        out[key] = value !== null && typeof value === 'object' && !isExactNumber(value) ? stringifyJson(value) : value;
    }
  };
  walk(record, '', 0);
  return out;
}

const typesOf = (schema: unknown): string[] => {
  const type = (schema as JsonSchema | undefined)?.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
};

/**
 * The schema flattened as the SDK flattens it: an object with declared members down to the
 * depth becomes their properties; an array, or an object left whole, a string (its JSON text).
 */
export function flattenSchema(schema: JsonSchema, opts: FlattenOptions): JsonSchema {
  const properties: Json = Object.create(null) as Json;
  const walk = (node: JsonSchema, prefix: string, level: number) => {
    for (const [name, child] of Object.entries((node.properties ?? {}) as Json)) {
      const key = prefix === '' ? name : prefix + opts.separator + name;
      const types = typesOf(child);
      if (types.includes('object') && (child as JsonSchema).properties && level < opts.maxDepth)
        walk(child as JsonSchema, key, level + 1);
      else if (types.includes('array') || (types.includes('object') && opts.maxDepth > 0))
        properties[key] = { type: types.includes('null') ? ['string', 'null'] : ['string'] };
      else properties[key] = child;
    }
  };
  walk(schema, '', 0);
  return { ...schema, properties };
}

/** The JSON type of a flattened value (a schema's `type` word). */
function typeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number' || isExactNumber(value)) return 'number';
  return 'string';
}

const ORDER = ['string', 'number', 'boolean'];

/**
 * The properties a flattened stream learned from its records (members of objects that declare
 * none): each with the types its values had. `learn` says whether the schema grew.
 */
export class LearnedLeaves {
  private readonly types = new Map<string, Set<string>>();

  /** Whether a flattened record has a property (or a type of one) not learned yet nor declared. */
  isNew(flat: Json, declared: Json): boolean {
    for (const key in flat) {
      if (Object.hasOwn(declared, key)) continue;
      const seen = this.types.get(key);
      const type = typeOf(flat[key]);
      if (!seen || (type !== 'null' && !seen.has(type))) return true;
    }
    return false;
  }

  learn(flat: Json, declared: Json): boolean {
    let grew = false;
    for (const key in flat) {
      if (Object.hasOwn(declared, key)) continue;
      let seen = this.types.get(key);
      if (!seen) {
        this.types.set(key, (seen = new Set()));
        grew = true;
      }
      const type = typeOf(flat[key]);
      if (type !== 'null' && !seen.has(type)) {
        seen.add(type);
        grew = true;
      }
    }
    return grew;
  }

  /** The schema with the learned properties after the declared ones: their types and null (a string when only null was seen). */
  addTo(schema: JsonSchema): JsonSchema {
    if (this.types.size === 0) return schema;
    const properties: Json = Object.assign(Object.create(null) as Json, schema.properties as Json);
    for (const [key, seen] of this.types) {
      if (Object.hasOwn(properties, key)) continue;
      const types = ORDER.filter((t) => seen.has(t));
      properties[key] = { type: [...(types.length > 0 ? types : ['string']), 'null'] };
    }
    return { ...schema, properties };
  }
}
