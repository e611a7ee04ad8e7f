import { UsageError } from '../errors.js';

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
  /** Column (or key) to value: strings for CSV, parsed JSON values for NDJSON and JSON. */
  values?: Record<string, unknown>;
  /** Why the row could not be read; such a row becomes an `invalid` result and is never sent. */
  error?: string;
  /** True for CSV rows, whose values are all text. */
  textual?: boolean;
}

/** A file that cannot be read as a whole (missing, bad structure): exit 2, naming the file and line. */
export class InputFileError extends UsageError {
  constructor(file: string, message: string, line?: number) {
    super(`${file}${line !== undefined ? ` line ${line}` : ''}: ${message}`, 'fix the file (or run with --dry-run to check it all first)', 'invalid_input');
  }
}

/** A JSON value that is a row must be an object. */
export function objectRow(line: number, value: unknown): InputRow {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { line, values: value as Record<string, unknown> };
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  return { line, error: `expected a JSON object, got ${kind}` };
}
