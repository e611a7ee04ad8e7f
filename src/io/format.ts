import type { Context } from '../context.js';
import { escapeControl } from './terminal-text.js';

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv'];

/** --json wins, then -o/--format, then a table on a terminal and JSON everywhere else. */
export function resolveFormat(ctx: Context): OutputFormat {
  if (ctx.globals.json) return 'json';
  if (ctx.globals.format) return ctx.globals.format;
  return ctx.io.stdoutIsTTY ? 'table' : 'json';
}

/** Colour only on a terminal, and never with --no-color or NO_COLOR. */
export function useColor(ctx: Context): boolean {
  return ctx.globals.color && ctx.io.stdoutIsTTY;
}

/** Table style for cli-table3: its default colours, or none. */
export function tableStyle(ctx: Context): { head?: string[]; border?: string[] } {
  return useColor(ctx) ? {} : { head: [], border: [] };
}

/** A cell as text: scalars as they are, null as empty, objects and arrays as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A table cell (or heading) as text for a terminal: control characters escaped, line breaks kept. */
export function tableText(value: unknown): string {
  return escapeControl(cellText(value), '\n');
}

/** Nested plain objects become dotted keys (`fields.city`); arrays stay whole. */
export function flatten(value: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
      flatten(v as Record<string, unknown>, name, out);
    } else {
      out[name] = v;
    }
  }
  return out;
}
