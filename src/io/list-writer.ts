import type { Context } from '../context.js';
import { csvFormatter } from './csv-line.js';
import { cellText, flatten, resolveFormat, tableStyle, tableText } from './format.js';
import { writeWithBackpressure } from './write.js';

/** Rows written one at a time to stdout; json/ndjson/csv stream, a table is laid out at the end. */
export interface ListWriter {
  write(row: Record<string, unknown>): Promise<void>;
  end(): Promise<void>;
}

/**
 * Columns: the given ones, else those of the first row (flattened). In CSV a row's keys that have
 * no column are never dropped silently: they land, as JSON, in a last `_extra` column.
 */
export async function createListWriter(ctx: Context, columns?: string[]): Promise<ListWriter> {
  const format = resolveFormat(ctx);
  const out = ctx.io.stdout;
  if (format === 'ndjson') {
    return { write: (row) => writeWithBackpressure(out, JSON.stringify(row) + '\n'), end: async () => {} };
  }
  if (format === 'json') {
    let count = 0;
    return {
      write: (row) => writeWithBackpressure(out, (count++ === 0 ? '[\n  ' : ',\n  ') + JSON.stringify(row)),
      end: () => writeWithBackpressure(out, count === 0 ? '[]\n' : '\n]\n'),
    };
  }
  if (format === 'csv') {
    const toCsv = await csvFormatter('\n');
    const line = (cells: string[]) => toCsv([cells]);
    let header = columns;
    let started = false;
    const start = () => {
      started = true;
      return writeWithBackpressure(out, line([...header!, '_extra']));
    };
    return {
      async write(row) {
        const flat = flatten(row);
        header ??= Object.keys(flat);
        if (!started) await start();
        const known = new Set(header);
        const rest = Object.fromEntries(Object.entries(flat).filter(([k]) => !known.has(k)));
        const cells = header.map((c) => cellText(flat[c]));
        cells.push(Object.keys(rest).length ? JSON.stringify(rest) : '');
        await writeWithBackpressure(out, line(cells));
      },
      async end() {
        if (!started && header) await start();
      },
    };
  }
  const rows: Array<Record<string, unknown>> = [];
  return {
    write: async (row) => void rows.push(flatten(row)),
    async end() {
      const { default: Table } = await import('cli-table3');
      const head = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
      // A table is for a terminal: what the server sent cannot act on it (JSON and CSV stay exact).
      const table = new Table({ head: head.map(tableText), style: tableStyle(ctx) });
      for (const row of rows) table.push(head.map((c) => tableText(row[c])));
      await writeWithBackpressure(out, rows.length === 0 ? '(no rows)\n' : table.toString() + '\n');
    },
  };
}
