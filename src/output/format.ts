import type { Writable } from 'node:stream';
import { isExactNumber, stringifyJson } from '../lib/exact-number.js';

type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv'];

/** What decides how a result is printed: stdout, what it is attached to, and the output flags in force. */
export interface Output {
  stdout: Writable;
  stdoutIsTTY: boolean;
  /** -o/--format. */
  format?: OutputFormat;
  /** --json. */
  json: boolean;
  /** -q/--query: a JMESPath expression applied to the JSON output. */
  query?: string;
  /** Colour allowed (not --no-color, not NO_COLOR). */
  color: boolean;
  /** A long table goes through this pager (only on a terminal, without --no-pager; src/output/pager.ts). */
  pager?: { command: string; warn(message: string): void };
}

/**
 * --json (or -q) asks for JSON, -o/--format for its format (the two never conflict: see
 * toGlobals), else a table on a terminal and JSON everywhere else.
 */
export function resolveFormat(out: Output): OutputFormat {
  if (out.format) return out.format;
  if (out.json || out.query !== undefined) return 'json';
  return out.stdoutIsTTY ? 'table' : 'json';
}

/** Colour only on a terminal, and never with --no-color or NO_COLOR. */
function useColor(out: Output): boolean {
  return out.color && out.stdoutIsTTY;
}

/** The width a table fits in: the terminal's, and none when stdout is not a terminal (nothing changes when piped). */
export function tableWidth(out: Output): number | undefined {
  if (!out.stdoutIsTTY) return undefined;
  const columns = (out.stdout as { columns?: number }).columns;
  return columns !== undefined && columns > 0 ? columns : 80;
}

const STATUS_COLUMN = /(^|\.)(status|[a-z]+Status|outcome|result|lastRun)$/;
const GREEN = /^(ok|succeeded|success|completed|subscribed|added|removed|committed|done|true)\b/i;
const RED = /^(fail|failed|error|unsubscribed|bounced|aborted|interrupted|unknown|read-only|mismatch)\b/i;
const YELLOW = /^(warn|warning|skipped|pending|no_status|not_a_member|no_such_contact|partial|inferred|unchecked)\b/i;

/**
 * Colours for status-like values only (a `status` column's ok/warn/fail, a subscription status),
 * and only on a terminal with colour allowed; everything else stays plain.
 */
export function statusPaint(
  out: Output,
): ((column: string, value: unknown, text: string, row?: Record<string, unknown>) => string) | undefined {
  if (!useColor(out)) return undefined;
  return (column, value, text) => {
    if (!STATUS_COLUMN.test(column) || (typeof value !== 'string' && typeof value !== 'boolean')) return text;
    const v = String(value);
    const code = GREEN.test(v) ? 32 : RED.test(v) ? 31 : YELLOW.test(v) ? 33 : undefined;
    return code === undefined ? text : `\x1b[${code}m${text}\x1b[39m`;
  };
}

/** A cell as text: scalars as they are, null as empty, objects and arrays as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  // An ExactNumber (a number kept as its digits) is an object that writes itself as text.
  if (typeof value === 'object') return stringifyJson(value);
  return String(value);
}

/** Nested plain objects become dotted keys (`fields.city`); arrays stay whole. */
export function flatten(
  value: Record<string, unknown>,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isExactNumber(v) && Object.keys(v).length > 0) {
      flatten(v as Record<string, unknown>, name, out);
    } else {
      out[name] = v;
    }
  }
  return out;
}
