import { looseJson } from '../cli/parse.js';
import type { InputRow } from '../io/input-rows.js';

export interface RowBodyOptions {
  /** Body keys the API names, by lower-case spelling, so CSV headers may use any case. */
  known: readonly string[];
  /** Keys whose CSV values stay text (identifiers, names); other values are parsed as JSON when they parse. */
  text: readonly string[];
}

/**
 * A row as a request body. NDJSON and JSON rows are bodies already. A CSV row becomes one:
 * empty cells are left out, `parent.key` columns fill nested objects (`fields.city`,
 * `data.plan`), and a value that parses as JSON is sent as JSON (`42`, `true`, `{"a":1}`).
 */
export function rowBody(row: InputRow, opts: RowBodyOptions): Record<string, unknown> {
  const values = row.values ?? {};
  if (!row.textual) return { ...values };
  const { name, text } = lookups(opts);
  const body: Record<string, unknown> = {};
  for (const column in values) {
    const cell = String(values[column]);
    if (cell.trim() === '') continue;
    const dot = column.indexOf('.');
    if (dot > 0 && dot < column.length - 1) {
      const parent = name(column.slice(0, dot));
      const nested = (body[parent] ??= {}) as Record<string, unknown>;
      if (typeof nested === 'object' && nested !== null) nested[column.slice(dot + 1)] = cellValue(cell);
      continue;
    }
    const key = name(column);
    body[key] = text.has(key) ? cell.trim() : cellValue(cell);
  }
  return body;
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
    const canonical = new Map(opts.known.map((k) => [k.toLowerCase(), k]));
    const names = new Map<string, string>();
    const name = (column: string) => {
      let n = names.get(column);
      if (n === undefined) {
        n = canonical.get(column.toLowerCase()) ?? column;
        if (names.size < 10_000) names.set(column, n);
      }
      return n;
    };
    found = { name, text: new Set(opts.text) };
    byText.set(opts.text, found);
  }
  return found;
}

// Only text that can start a JSON value is tried: a failed JSON.parse (an exception) per cell is slow.
const JSON_START = /^\s*(?:[-0-9{["]|(?:true|false|null)\s*$)/;

function cellValue(cell: string): unknown {
  return JSON_START.test(cell) ? looseJson(cell) : cell;
}
