import { flatten, resolveFormat, statusPaint, tableWidth, type Output } from './format.js';
import { writeWithBackpressure } from './write.js';
import { writePaged } from './pager.js';
import { asksForDocument, documentText } from './document.js';
import { stringifyJson } from '../lib/exact-number.js';

/** What a command hands back: data to print, and the exit code when it is not 0. */
export type CommandResult =
  | { kind: 'record'; data: unknown; exitCode?: number }
  | {
      kind: 'list';
      rows: Array<Record<string, unknown>>;
      /** Columns of CSV (and of a table when `tableColumns` is not given). */
      columns?: string[];
      /** The columns a terminal table shows (the command's default set, or --columns). */
      tableColumns?: string[];
      /** The user named the columns (--columns): CSV has only those. */
      chosen?: boolean;
      /** Columns of a terminal table whose values wrap at spaces instead of being cut (doctor's details). */
      wrap?: string[];
      /** A line for stderr once the rows are printed (the next page's cursor): below the table, not above it. */
      trailer?: string;
      exitCode?: number;
    }
  /**
   * The result document of a command that writes no data to stdout (a saved profile): printed
   * only when JSON is asked for (--json, -q, -o json|ndjson), else nothing.
   */
  | { kind: 'document'; data: unknown; exitCode?: number }
  | { kind: 'none'; exitCode?: number };

/**
 * Prints a command's result on stdout in the format in force. The JSON document is the same
 * whatever the terminal or flag: a record as one object, a list as one array. A list's trailer
 * goes to `info` (stderr), below the rows.
 */
export async function renderResult(
  output: Output,
  result: CommandResult,
  notices: { info(line: string): void; warn(message: string): void },
): Promise<void> {
  if (result.kind === 'none') return;
  if (result.kind === 'document') {
    if (!asksForDocument(output)) return;
    return writeWithBackpressure(
      output.stdout,
      documentText(output, result.data, (m) => notices.warn(m)),
    );
  }
  if (result.kind === 'list') {
    const { createListWriter } = await import('./list-writer.js');
    const writer = await createListWriter(
      output,
      result.columns,
      { table: result.tableColumns, chosen: result.chosen, wrap: result.wrap },
      (m) => notices.warn(m),
    );
    for (const row of result.rows) await writer.write(row);
    await writer.end();
    if (result.trailer !== undefined) notices.info(result.trailer);
    return;
  }
  const format = resolveFormat(output);
  const data = result.data;
  if (output.query !== undefined && (format === 'json' || format === 'ndjson')) {
    return writeWithBackpressure(
      output.stdout,
      documentText(output, data, (m) => notices.warn(m)),
    );
  }
  if (format === 'json') return writeWithBackpressure(output.stdout, stringifyJson(data, 2) + '\n');
  if (format === 'ndjson') return writeWithBackpressure(output.stdout, stringifyJson(data) + '\n');
  if (format === 'csv' || typeof data !== 'object' || data === null) {
    const { createListWriter } = await import('./list-writer.js');
    const writer = await createListWriter(output);
    await writer.write(typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : { value: data });
    return writer.end();
  }
  return writePaged(output, await recordTable(output, data as Record<string, unknown>));
}

/**
 * A record for a terminal: one `name  value` line per scalar (dotted names for nested objects),
 * then each array of objects as its own table under its name; fitted to the terminal width.
 */
async function recordTable(output: Output, record: Record<string, unknown>): Promise<string> {
  const { layoutTable } = await import('./table.js');
  const layout = { width: tableWidth(output), paint: statusPaint(output) };
  const scalars: Array<Record<string, unknown>> = [];
  const sections: Array<[string, Array<Record<string, unknown>>]> = [];
  for (const [key, value] of Object.entries(flatten(record))) {
    if (Array.isArray(value) && value.length > 0 && value.every((v) => v !== null && typeof v === 'object')) {
      sections.push([key, value as Array<Record<string, unknown>>]);
    } else {
      scalars.push({ name: key, value });
    }
  }
  // The value column is painted by its name: a `status` line reads as a status.
  const paint = layout.paint;
  let out = layoutTable(['name', 'value'], scalars, {
    ...layout,
    heading: false,
    paint: paint && ((column, value, text, row) => (column === 'value' ? paint(String(row.name), value, text) : text)),
  });
  for (const [title, items] of sections) {
    const rows = items.map((item) => flatten(item));
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    out += `\n${title}:\n${layoutTable(columns, rows, layout)}`;
  }
  return out;
}
