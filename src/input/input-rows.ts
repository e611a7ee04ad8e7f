import { UsageError } from '../errors.js';
import { parseJson } from '../json/exact-json.js';
import { escapeControl } from '../lib/terminal-text.js';
import { keysWritten, repeatedKey, scanJson, TOO_DEEP, type ScanState } from '../lib/json-scan.js';
import { ExactNumber, stringifyJson } from '../lib/exact-number.js';

/** Input file formats the batch commands read. */
export type InputFormat = 'csv' | 'ndjson' | 'json';
export const INPUT_FORMATS: readonly InputFormat[] = ['csv', 'ndjson', 'json'];

/** One row of an input file. */
export interface InputRow {
  /**
   * 1-based physical line where the row starts: CSV counts the header as line 1, NDJSON counts
   * every line, a JSON array gives the line of the element's first character.
   */
  line: number;
  /**
   * 0-based place of the row among the file's rows (blank lines and empty CSV records are not
   * rows), set by openInput: what identifies a record whatever its line, as every element of a
   * JSON array on one line shares line 1.
   */
  index?: number;
  /** Column (or key) to value: strings for CSV, parsed JSON values for NDJSON and JSON. */
  values?: Record<string, unknown>;
  /** Why the row could not be read; such a row becomes an `invalid` result and is never sent. */
  error?: string;
  /** True for CSV rows, whose values are all text. */
  textual?: boolean;
}

/** A file that cannot be read as a whole (missing, bad structure): exit 2, naming the file and line. */
export class InputFileError extends UsageError {
  constructor(
    file: string,
    message: string,
    line?: number,
    hint = 'fix the file (or run with --dry-run to check it all first)',
  ) {
    super(`${file}${line !== undefined ? ` line ${line}` : ''}: ${message}`, hint, 'invalid_input');
  }
}

/**
 * Deeper JSON than this is refused as a row: nothing the API takes nests so far, and deeper values
 * overflow recursive code (JSON.stringify) on the way out.
 */
export const MAX_JSON_DEPTH = 100;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}...` : text);

/**
 * Text from an input file as it may appear in a message: JSON-quoted, control characters
 * (NUL, ESC, C1, line and paragraph separators) escaped, at most `max` characters shown.
 */
export function quoteInput(text: string, max = 40): string {
  return escapeControl(JSON.stringify(cut(text, max)));
}

/** Input shown without quotes (an identifier in a summary line): unsafe characters escaped, at most `max` shown. */
export function safeText(text: string, max = 80): string {
  return escapeControl(cut(text, max));
}

/** Any value of a row as it may appear in a message: text quoted, other values as JSON; escaped and cut. */
export function showValue(value: unknown, max = 60): string {
  return typeof value === 'string' ? quoteInput(value, max) : safeText(stringifyJson(value) ?? String(value), max);
}

/** A JSON.parse error message made safe to print: V8 quotes the input in it. */
function jsonErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // "Unexpected token 'x', "...text..." is not valid JSON": the quoted text is input.
  return escapeControl(
    message.replace(
      /, (?:\.\.\.)?"([^]*)"(?:\.\.\.)? is not valid JSON$/,
      (_, text: string) => `, in ${quoteInput(text)}`,
    ),
  ).slice(0, 200);
}

/**
 * True when JSON text nests deeper than `limit` (counted outside strings). Text shorter than
 * twice the limit cannot, so most rows cost one length check.
 */
export function nestsDeeper(text: string, limit = MAX_JSON_DEPTH): boolean {
  if (text.length <= 2 * limit) return false;
  // Value after value: text that is not one JSON value is looked at whole all the same.
  const state: ScanState = { depth: 0, inString: false, maxDepth: limit };
  for (let i = 0; i < text.length;) {
    const end = scanJson(text, i, text.length, state);
    if (end === TOO_DEEP) return true;
    if (end < 0) return false;
    i = end + 1;
  }
  return false;
}

/** A JSON row's text as a row: parsed, or why not (bad JSON, too deep, not an object, a key named twice). */
export function jsonRow(line: number, text: string): InputRow {
  if (nestsDeeper(text)) return { line, error: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  let row: InputRow;
  try {
    row = objectRow(line, parseJson(text));
  } catch (err) {
    return { line, error: `not valid JSON: ${jsonErrorText(err)}` };
  }
  // JSON.parse keeps the last of two members of one name: which one was meant is not cnv's guess.
  const twice = row.values && keysWritten(text) !== membersOf(row.values) ? repeatedKey(text) : undefined;
  return twice ? { line, error: `the key ${quoteInput(twice)} appears twice in one object: keep one` } : row;
}

/** The members of every object in a parsed JSON value (a row: nested at most MAX_JSON_DEPTH levels). */
function membersOf(value: unknown): number {
  if (value === null || typeof value !== 'object' || value instanceof ExactNumber) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += membersOf(item);
    return n;
  }
  for (const key in value) n += 1 + membersOf((value as Record<string, unknown>)[key]);
  return n;
}

/** A JSON value that is a row must be an object. */
function objectRow(line: number, value: unknown): InputRow {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return { line, values: value as Record<string, unknown> };
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return { line, error: `expected a JSON object, got ${kind}` };
}
