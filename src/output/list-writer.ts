import type { Writable } from 'node:stream';
import { csvFormatter } from './csv-line.js';
import { cellText, flatten, resolveFormat, type Output } from './format.js';
import { tableText, writePaged } from './pager.js';
import { writeWithBackpressure } from './write.js';
import { stringifyJson } from '../lib/exact-number.js';

/** Rows written one at a time to stdout; json/ndjson/csv stream, a table is laid out at the end. */
interface ListWriter {
  write(row: Record<string, unknown>): Promise<void>;
  end(): Promise<void>;
}

interface ListLayout {
  /** The columns a terminal table shows (the command's default set, or --columns). */
  table?: string[];
  /** The user named the columns (--columns): CSV has those only, without `_extra`. */
  chosen?: boolean;
  /** Columns of a terminal table that wrap instead of being cut (src/output/table.ts). */
  wrap?: readonly string[];
}

/**
 * Columns: the given ones, else those of the first row (flattened). In CSV a row's keys that have
 * no column are never dropped silently: they land, as JSON, in a last `_extra` column (unless
 * the user chose the columns). JSON is one array of the rows as they came, NDJSON one row a
 * line; with -q the query selects from that array (from each row in NDJSON).
 */
export async function createListWriter(
  output: Output,
  columns?: string[],
  layout: ListLayout = {},
  warn?: (message: string) => void,
): Promise<ListWriter> {
  const format = resolveFormat(output);
  // --columns chooses the members of JSON too (nested as the API sent them: type.name is {type: {name}}).
  if (layout.chosen && columns && (format === 'json' || format === 'ndjson')) {
    const inner = await createListWriter(output, undefined, {}, warn);
    return { write: (row) => inner.write(pick(row, columns)), end: () => inner.end() };
  }
  if (output.query !== undefined && (format === 'json' || format === 'ndjson'))
    return queryWriter(output.stdout, output.query, format, warn);
  if (format === 'ndjson') {
    return { write: (row) => writeWithBackpressure(output.stdout, stringifyJson(row) + '\n'), end: async () => {} };
  }
  if (format === 'json') return jsonWriter(output.stdout);
  if (format === 'csv') return csvWriter(output.stdout, columns, layout);
  return tableWriter(output, columns, layout);
}

/** -q: the query's result for each row (NDJSON), or for the whole array (JSON: the rows are held until the end). */
async function queryWriter(
  out: Writable,
  expression: string,
  format: 'json' | 'ndjson',
  warn?: (message: string) => void,
): Promise<ListWriter> {
  const { documentQueryText, loadQuery, queryText } = await import('./query.js');
  const query = await loadQuery(expression);
  if (format === 'ndjson')
    return { write: (row) => writeWithBackpressure(out, queryText(query(row), true)), end: async () => {} };
  const rows: Array<Record<string, unknown>> = [];
  return {
    write: async (row) => void rows.push(row),
    end: () => writeWithBackpressure(out, documentQueryText(expression, rows, false, warn)),
  };
}

/** One JSON array, a row a line, streamed. */
function jsonWriter(out: Writable): ListWriter {
  let count = 0;
  return {
    write: (row) => writeWithBackpressure(out, (count++ === 0 ? '[\n  ' : ',\n  ') + stringifyJson(row)),
    end: () => writeWithBackpressure(out, count === 0 ? '[]\n' : '\n]\n'),
  };
}

/** CSV under the columns (else the first row's), streamed; what has no column goes to `_extra` unless the columns were chosen. */
async function csvWriter(out: Writable, columns: string[] | undefined, layout: ListLayout): Promise<ListWriter> {
  const toCsv = await csvFormatter('\n');
  const line = (cells: string[]) => toCsv([cells]);
  let header = columns;
  let started = false;
  const start = () => {
    started = true;
    return writeWithBackpressure(out, line(layout.chosen ? header! : [...header!, '_extra']));
  };
  return {
    async write(row) {
      const flat = flatten(row);
      header ??= Object.keys(flat);
      if (!started) await start();
      const known = new Set(header);
      // A member under a column that holds its object whole (`output.path` under `output`) has its column.
      const covered = (k: string) => known.has(k) || header!.some((c) => k.startsWith(`${c}.`));
      const rest = Object.fromEntries(Object.entries(flat).filter(([k]) => !covered(k)));
      // A column naming an object (--columns output) holds it whole, as JSON.
      const cells = header.map((c) => cellText(c in flat ? flat[c] : valueAt(row, c)));
      if (!layout.chosen) cells.push(Object.keys(rest).length ? stringifyJson(rest) : '');
      await writeWithBackpressure(out, line(cells));
    },
    async end() {
      if (!started && header) await start();
    },
  };
}

/** A table for a terminal: laid out once every row is in. */
function tableWriter(output: Output, columns: string[] | undefined, layout: ListLayout): ListWriter {
  const rows: Array<Record<string, unknown>> = [];
  return {
    write: async (row) => void rows.push(flatten(row)),
    async end() {
      if (rows.length === 0) return writeWithBackpressure(output.stdout, '(no rows)\n');
      const head = layout.table ?? columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
      // A table is for a terminal: what the server sent cannot act on it (JSON and CSV stay exact).
      await writePaged(output, await tableText(output, head, rows, layout.wrap));
    },
  };
}

/** The members of `row` that `columns` (dotted paths) name, nested as they are in `row`; members it lacks are left out. */
function pick(row: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) {
    const path = column.split('.');
    const value = valueAt(row, column);
    if (value === undefined) continue;
    let into = out;
    for (const name of path.slice(0, -1)) into = (into[name] ??= {}) as Record<string, unknown>;
    into[path[path.length - 1]] = value;
  }
  return out;
}

/** The value at a dotted path (`type.name`) of a row, or undefined. */
function valueAt(row: Record<string, unknown>, column: string): unknown {
  let value: unknown = row;
  for (const name of column.split('.'))
    value =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)[name]
        : undefined;
  return value;
}
