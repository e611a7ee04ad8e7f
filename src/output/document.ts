import type { Output } from './format.js';
import { documentQueryText } from './query.js';
import { stringifyJson } from '../lib/exact-number.js';

// The result document of a command that writes no data to stdout (a file run's summary, an
// export into a file, a saved profile): printed on stdout only when the user asks for JSON.
// docs/output.md, "One JSON document per command".

/**
 * How a command's document is printed: -o is its file's format (an export's), or always one line
 * (the emulator's, which a reader waits on).
 */
export interface DocumentForm {
  formatIsFile?: boolean;
  oneLine?: boolean;
}

/**
 * Whether the output flags ask for the result document: --json, -q, or -o json|ndjson. An
 * export's -o is its file's format (`formatIsFile`), so there only --json and -q ask.
 */
export function asksForDocument(out: Pick<Output, 'json' | 'query' | 'format'>, formatIsFile = false): boolean {
  if (out.json || out.query !== undefined) return true;
  return !formatIsFile && (out.format === 'json' || out.format === 'ndjson');
}

/**
 * The document as stdout's text: pretty JSON (one line with -o ndjson, unless -o is a file's
 * format), or what -q selects from it. Synchronous: -q was compiled before the command ran.
 */
export function documentText(
  out: Pick<Output, 'query' | 'format'>,
  document: unknown,
  warn: (message: string) => void,
  how: DocumentForm = {},
): string {
  const compact = how.oneLine === true || (!how.formatIsFile && out.format === 'ndjson');
  if (out.query !== undefined) return documentQueryText(out.query, document, compact, warn);
  return (compact ? stringifyJson(document) : stringifyJson(document, 2)) + '\n';
}
