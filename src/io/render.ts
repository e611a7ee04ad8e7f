import type { Context } from '../context.js';
import { flatten, resolveFormat, tableStyle, tableText } from './format.js';
import { writeWithBackpressure } from './write.js';

/** What a command hands back: data to print, and the exit code when it is not 0. */
export type CommandResult =
  | { kind: 'record'; data: unknown; exitCode?: number }
  | { kind: 'list'; rows: Array<Record<string, unknown>>; columns?: string[]; exitCode?: number }
  | { kind: 'none'; exitCode?: number };

/** Prints a command's result on stdout in the format in force. */
export async function renderResult(ctx: Context, result: CommandResult): Promise<void> {
  if (result.kind === 'none') return;
  if (result.kind === 'list') {
    const { createListWriter } = await import('./list-writer.js');
    const writer = await createListWriter(ctx, result.columns);
    for (const row of result.rows) await writer.write(row);
    await writer.end();
    return;
  }
  const format = resolveFormat(ctx);
  const data = result.data;
  if (format === 'json') return writeWithBackpressure(ctx.io.stdout, JSON.stringify(data, null, 2) + '\n');
  if (format === 'ndjson') return writeWithBackpressure(ctx.io.stdout, JSON.stringify(data) + '\n');
  if (format === 'csv' || typeof data !== 'object' || data === null) {
    const { createListWriter } = await import('./list-writer.js');
    const writer = await createListWriter(ctx);
    await writer.write(typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : { value: data });
    return writer.end();
  }
  return writeWithBackpressure(ctx.io.stdout, await recordTable(data as Record<string, unknown>, tableStyle(ctx)));
}

/** A record as a two-column table, with each array of objects as its own table below; text escaped for the terminal. */
async function recordTable(record: Record<string, unknown>, style: ReturnType<typeof tableStyle>): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const scalars: Record<string, unknown> = {};
  const sections: Array<[string, Array<Record<string, unknown>>]> = [];
  for (const [key, value] of Object.entries(flatten(record))) {
    if (Array.isArray(value) && value.length > 0 && value.every((v) => v !== null && typeof v === 'object')) {
      sections.push([key, value as Array<Record<string, unknown>>]);
    } else {
      scalars[key] = value;
    }
  }
  const main = new Table({ style });
  for (const [key, value] of Object.entries(scalars)) main.push({ [tableText(key)]: tableText(value) });
  let out = main.toString() + '\n';
  for (const [title, items] of sections) {
    const rows = items.map((item) => flatten(item));
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const table = new Table({ head: columns.map(tableText), style });
    for (const row of rows) table.push(columns.map((c) => tableText(row[c])));
    out += `\n${tableText(title)}\n${table.toString()}\n`;
  }
  return out;
}
