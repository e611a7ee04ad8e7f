import { columnNamer } from '../io/column-names.js';
import { quoteInput, type InputRow } from '../io/input-rows.js';
import { looseJson } from '../lib/option-values.js';

/** A row that cannot become a body (two columns naming one key): an invalid row, never sent. */
export class InvalidRowError extends Error {}

export interface RowBodyOptions {
  /** Body keys the API names: CSV columns and JSON keys match them as src/io/column-names.ts says (any case, common spellings). */
  known: readonly string[];
  /** Keys whose CSV values stay text (identifiers, names); other values are parsed as JSON when they parse. */
  text: readonly string[];
  /**
   * A CSV cell of a `parent.key` column, when the caller knows better than "JSON when it parses"
   * (a field's definition); undefined leaves the cell to that rule.
   */
  nestedCell?: (parent: string, key: string, cell: string) => unknown;
}

/**
 * A row as a request body. NDJSON and JSON rows are bodies already, their top-level keys
 * named like CSV columns (`Email` is `email`). A CSV row becomes one:
 * empty cells are left out, `parent.key` columns fill nested objects (`fields.city`,
 * `data.plan`), and a value that parses as JSON is sent as JSON (`42`, `true`, `{"a":1}`).
 * Two columns or keys naming the same body key (`email` and `E-mail`, both given) throw
 * InvalidRowError: which one was meant is not for cnv to guess.
 */
export function rowBody(row: InputRow, opts: RowBodyOptions): Record<string, unknown> {
  const values = row.values ?? {};
  const { name, text } = lookups(opts);
  const body: Record<string, unknown> = {};
  if (!row.textual) {
    for (const column in values) {
      const key = name(column);
      if (key !== column && Object.hasOwn(values, key)) clash(column, key);
      if (key !== column && Object.hasOwn(body, key)) clash(column, key);
      body[key] = values[column];
    }
    return body;
  }
  for (const column in values) {
    const cell = String(values[column]);
    if (cell.trim() === '') continue;
    const dot = column.indexOf('.');
    if (dot > 0 && dot < column.length - 1) {
      const parent = name(column.slice(0, dot));
      const nested = (body[parent] ??= {}) as Record<string, unknown>;
      const key = column.slice(dot + 1);
      if (typeof nested === 'object' && nested !== null) nested[key] = opts.nestedCell?.(parent, key, cell) ?? cellValue(cell);
      continue;
    }
    const key = name(column);
    if (body[key] !== undefined) clash(column, key);
    body[key] = text.has(key) ? cell.trim() : cellValue(cell);
  }
  return body;
}

function clash(column: string, key: string): never {
  throw new InvalidRowError(`${quoteInput(column)} and another column or key both name ${key}: keep one`);
}

interface Lookups {
  name: (column: string) => string;
  text: ReadonlySet<string>;
}

// Built once per options (the callers pass constant arrays), not once per row.
const cache = new WeakMap<readonly string[], WeakMap<readonly string[], Lookups>>();

function lookups(opts: RowBodyOptions): Lookups {
  let byText = cache.get(opts.known);
  if (!byText) cache.set(opts.known, (byText = new WeakMap()));
  let found = byText.get(opts.text);
  if (!found) {
    found = { name: columnNamer(opts.known), text: new Set(opts.text) };
    byText.set(opts.text, found);
  }
  return found;
}

// Only text that can start a JSON value is tried: a failed JSON.parse (an exception) per cell is slow.
const JSON_START = /^\s*(?:[-0-9{["]|(?:true|false|null)\s*$)/;

function cellValue(cell: string): unknown {
  return JSON_START.test(cell) ? looseJson(cell) : cell;
}
