import { DATA_TYPES, type DataType, type FieldDefinition } from '../endpoints/fields.js';
import type { RecordInput } from '../endpoints/records.js';
import { coerceValue, type CoerceOptions } from '../input/coerce.js';
import { setOwn } from '../lib/own-key.js';

/** The column (or JSON member) that identifies a record. */
export const DEDUP_KEY = 'clientDedupKey';

/** What to do with an empty CSV cell: leave the field unchanged (skip) or clear it (null). */
export type EmptyCells = 'skip' | 'null';

export interface PrepareOptions {
  /** Field definitions by key; undefined with --no-coerce (values are sent as they are). */
  definitions?: ReadonlyMap<string, FieldDefinition>;
  emptyCells: EmptyCells;
  /** CSV rows are flat strings; JSON rows may also carry a `fields` object. */
  csv: boolean;
  coerce?: CoerceOptions;
  /** Counts the empty CSV cells left out (`skip`): the run says so once. */
  blanks?: { see(column: string): void };
}

/** One thing wrong with a row, tied to a field (or to the dedup key) for the --check report. */
export interface RowProblem {
  field: string;
  kind: 'key' | 'shape' | 'unknown' | 'read-only' | 'type';
  reason: string;
}

export type PreparedRecord =
  { ok: true; record: RecordInput } | { ok: false; clientDedupKey?: string; problems: RowProblem[] };

/** Field definitions by key, as `prepareRecord` wants them. */
export function definitionMap(fields: readonly FieldDefinition[]): Map<string, FieldDefinition> {
  return new Map(fields.map((f) => [f.key, f]));
}

/** Why a field cannot be written from a file, or undefined when it can. */
export function fieldProblem(key: string, def: FieldDefinition | undefined): RowProblem | undefined {
  if (!def) return { field: key, kind: 'unknown', reason: `unknown field "${key}"` };
  if (def.readOnly) return { field: key, kind: 'read-only', reason: `field "${key}" is read-only` };
  return undefined;
}

/**
 * Turns one input row into the record the API takes: `clientDedupKey` plus fields, either
 * flat beside it or (JSON/NDJSON) in a `fields` object. With definitions, every field must
 * exist, be writable and coerce to its dataType; every problem of the row is listed.
 */
export function prepareRecord(row: Record<string, unknown>, opts: PrepareOptions): PreparedRecord {
  const problems: RowProblem[] = [];
  const rawKey = row[DEDUP_KEY];
  const clientDedupKey =
    typeof rawKey === 'string' && rawKey.trim() !== ''
      ? rawKey
      : typeof rawKey === 'number' && Number.isFinite(rawKey)
        ? String(rawKey)
        : undefined;
  if (clientDedupKey === undefined)
    problems.push({ field: DEDUP_KEY, kind: 'key', reason: `${DEDUP_KEY} is required (a non-empty string)` });

  const entries = fieldEntries(row, opts.csv, problems);
  const fields: Record<string, unknown> = {};
  for (const [key, raw] of entries) {
    let value = raw;
    if (raw === '' && opts.csv) {
      if (opts.emptyCells === 'skip') {
        opts.blanks?.see(key);
        continue;
      }
      value = null;
    }
    // Own members whatever the key: a field keyed `__proto__` is sent, not made the object's prototype.
    if (!opts.definitions) {
      setOwn(fields, key, value);
      continue;
    }
    const def = opts.definitions.get(key);
    const problem = fieldProblem(key, def);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const dataType = (DATA_TYPES as readonly string[]).includes(def!.dataType)
      ? (def!.dataType as DataType)
      : undefined;
    // A data type this client does not know is sent as it is; the API decides.
    const coerced = dataType ? coerceValue(value, dataType, opts.coerce) : { ok: true as const, value };
    if (coerced.ok) setOwn(fields, key, coerced.value);
    else problems.push({ field: key, kind: 'type', reason: `field "${key}" (${dataType}): ${coerced.reason}` });
  }
  if (problems.length > 0) return { ok: false, clientDedupKey, problems };
  return { ok: true, record: { clientDedupKey: clientDedupKey!, fields } };
}

function fieldEntries(row: Record<string, unknown>, csv: boolean, problems: RowProblem[]): Array<[string, unknown]> {
  const rest = Object.entries(row).filter(([k]) => k !== DEDUP_KEY);
  // A CSV column may also be spelled `fields.<key>`, as in the contacts files.
  if (csv) return rest.map(([k, v]) => [k.startsWith('fields.') ? k.slice('fields.'.length) : k, v]);
  const nested = row.fields;
  if (nested === undefined || nested === null || typeof nested !== 'object' || Array.isArray(nested)) return rest;
  if (rest.length > 1) {
    problems.push({
      field: 'fields',
      kind: 'shape',
      reason: 'put field values either in "fields" or beside clientDedupKey, not both',
    });
    return [];
  }
  return Object.entries(nested);
}
