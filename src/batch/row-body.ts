import { DATA_TYPES, type DataType } from '../endpoints/fields.js';
import { looseJson } from '../json/exact-json.js';
import { repeatedKey } from '../lib/json-scan.js';
import { setOwn } from '../lib/own-key.js';
import { quoteInput, showValue, type InputRow } from '../input/input-rows.js';
import { coerceValue, type CoerceOptions } from '../input/coerce.js';
import type { ColumnResolver } from './columns/column-resolver.js';
import type { ColumnTarget } from './columns/field-match.js';

/** A row that cannot become a body: an invalid row (`malformed_row`, or `code`), never sent. */
export class InvalidRowError extends Error {
  constructor(
    message: string,
    readonly code = 'malformed_row',
  ) {
    super(message);
  }
}

/** How a row's field cells are read: NUMBER cells by the file's convention; blank ones counted (they are not sent). */
export interface RowCells {
  coerce?: CoerceOptions;
  blanks?: { see(column: string): void };
}

/** A row as a request body, and a note for its report line (which column identified it). */
interface ShapedRow {
  body: Record<string, unknown>;
  note?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A row as the body its columns resolve to (src/batch/columns/column-resolver.ts). A CSV cell is text: empty
 * cells are left out; an identifier or name stays text (trimmed); a field's cell is typed by its
 * definition (a STRING keeps every character, quotes included; a NUMBER keeps every digit); any
 * other cell is JSON when it parses (numbers exact), else text. NDJSON and JSON values are sent
 * as they are. Two columns naming one destination, or a column the rules do not know (a key
 * first seen after the file was checked), make the row invalid.
 */
export function shapeRow(row: InputRow, resolver: ColumnResolver, cells: RowCells = {}): ShapedRow {
  const values = row.values ?? {};
  const text = resolver.rules.text;
  const coerce = cells.coerce ?? {};
  const body: Record<string, unknown> = {};
  let lenient: { column: string; value: unknown } | undefined;
  let unknown: string[] | undefined;
  for (const column in values) {
    const raw = values[column];
    if (row.textual && String(raw).trim() === '') {
      if (cells.blanks && isFieldColumn(resolver, column)) cells.blanks.see(column);
      continue;
    }
    const { target } = resolver.resolve(column);
    switch (target.kind) {
      case 'skip':
        continue;
      case 'unknown':
        (unknown ??= []).push(column);
        continue;
      case 'key': {
        const value = row.textual ? (text.includes(target.key) ? String(raw).trim() : looseJson(String(raw))) : raw;
        if (target.lenient && !(typeof value === 'string' && UUID.test(value.trim()))) {
          lenient = { column, value };
          continue;
        }
        if (isObject(value) && row.textual) twiceInCell(String(raw), column);
        if (isObject(value) && resolver.rules.objects.includes(target.key)) mergeInto(body, target.key, value, column);
        else put(body, target.key, value, column);
        continue;
      }
      case 'pass':
        put(body, target.key, row.textual ? looseJson(String(raw)) : raw, column);
        continue;
      default:
        put(
          objectIn(body, target.parent, column),
          target.key,
          row.textual ? cellOf(target, String(raw), column, coerce) : raw,
          column,
          `${target.parent}.${target.key}`,
        );
    }
  }
  if (unknown) {
    const names = unknown.map((c) => quoteInput(c)).join(', ');
    throw new InvalidRowError(
      `${names}: not a column ${resolver.rules.endpoint} takes (first seen after the file was checked)`,
      'unknown_column',
    );
  }
  return lenient ? withLenientId(body, lenient, resolver) : { body };
}

/**
 * A row with its columns renamed to the keys they resolve to, values untouched (records: the
 * clientDedupKey and field keys, typed later by src/records/prepare.ts). Left-out columns are
 * dropped; with `keepUnknown` (a --check) an unknown column keeps its name, to be reported.
 */
export function renameRow(row: InputRow, resolver: ColumnResolver, keepUnknown = false): InputRow {
  const values = row.values ?? {};
  const out: Record<string, unknown> = {};
  for (const column in values) {
    const { target } = resolver.resolve(column);
    if (target.kind === 'skip') continue;
    if (target.kind === 'unknown' && !keepUnknown) {
      throw new InvalidRowError(
        `${quoteInput(column)}: not a column ${resolver.rules.endpoint} takes (first seen after the file was checked)`,
        'unknown_column',
      );
    }
    const key = target.kind === 'unknown' ? column : target.key;
    // An empty cell of another column naming the same key (a CSV with `seats` and `Seats`) is no clash.
    if (
      Object.hasOwn(out, key) &&
      !(row.textual && (String(values[column]).trim() === '' || String(out[key]).trim() === ''))
    )
      clash(column, key);
    if (!Object.hasOwn(out, key) || String(out[key]).trim() === '') setOwn(out, key, values[column]);
  }
  return { ...row, values: out };
}

/** Whether a column's cells go to a field (by definition, or `fields.KEY` without definitions). */
function isFieldColumn(resolver: ColumnResolver, column: string): boolean {
  const { target } = resolver.resolve(column);
  return (
    target.kind === 'field' || (target.kind === 'nested' && (resolver.rules.fieldParents ?? []).includes(target.parent))
  );
}

/** A cell that does not fit its field's type: the row is invalid (`invalid_field`) and never sent. */
class CellMismatch {
  constructor(readonly message: string) {}
}

/** The first cell of the body that did not fit its field, if any. */
export function cellMismatch(body: Record<string, unknown>, parents: readonly string[]): CellMismatch | undefined {
  for (const parent of parents) {
    const values = body[parent];
    if (!isObject(values)) continue;
    for (const value of Object.values(values)) if (value instanceof CellMismatch) return value;
  }
  return undefined;
}

function cellOf(
  target: Extract<ColumnTarget, { kind: 'nested' | 'field' }>,
  cell: string,
  column: string,
  coerce: CoerceOptions,
): unknown {
  if (target.kind === 'nested') return looseJson(cell);
  const dataType = (DATA_TYPES as readonly string[]).includes(target.def.dataType)
    ? (target.def.dataType as DataType)
    : undefined;
  // A data type this client does not know: the old rule, and the API judges.
  if (!dataType) return looseJson(cell);
  const coerced = coerceValue(cell, dataType, coerce);
  if (coerced.ok) return coerced.value;
  const named = column === `${target.parent}.${target.key}` ? '' : ` (column ${quoteInput(column)})`;
  return new CellMismatch(
    `${target.parent}.${target.key}${named}: field "${target.key}" (${dataType}): ${coerced.reason}`,
  );
}

/**
 * A lenient id column (`Contact ID`, `id`) that holds no UUID: another identifier of the row
 * identifies it and the note says so; without one, the value is sent to be judged (invalid).
 */
function withLenientId(
  body: Record<string, unknown>,
  lenient: { column: string; value: unknown },
  resolver: ColumnResolver,
): ShapedRow {
  const other = resolver.rules.identifiers.find((key) => key !== 'cnvContactId' && body[key] !== undefined);
  if (other === undefined) {
    put(body, 'cnvContactId', lenient.value, lenient.column);
    return { body };
  }
  const holds = `${quoteInput(lenient.column)} holds ${showValue(lenient.value)}`;
  return { body, note: `identified by ${other}: ${holds}, not a cnvContactId (UUID), so it was not sent` };
}

function put(target: Record<string, unknown>, key: string, value: unknown, column: string, shown = key): void {
  if (Object.hasOwn(target, key)) clash(column, shown);
  setOwn(target, key, value);
}

function objectIn(body: Record<string, unknown>, parent: string, column: string): Record<string, unknown> {
  const existing = body[parent];
  if (existing === undefined) return (body[parent] = {}) as Record<string, unknown>;
  if (!isObject(existing)) clash(column, parent);
  return existing;
}

function mergeInto(
  body: Record<string, unknown>,
  parent: string,
  value: Record<string, unknown>,
  column: string,
): void {
  const target = objectIn(body, parent, column);
  for (const key of Object.keys(value)) put(target, key, value[key], `${column}.${key}`, `${parent}.${key}`);
}

/** A CSV cell holding a JSON object that names one key twice (JSON.parse would keep the last). */
function twiceInCell(cell: string, column: string): void {
  const twice = repeatedKey(cell);
  if (twice !== undefined)
    throw new InvalidRowError(
      `${quoteInput(column)}: the key ${quoteInput(twice)} appears twice in one object: keep one`,
    );
}

function clash(column: string, key: string): never {
  throw new InvalidRowError(`${quoteInput(column)} and another column or key both name ${key}: keep one`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
