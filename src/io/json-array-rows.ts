import { MAX_WRITE_BYTES, sizeText } from '../http/body.js';
import { scanJson, type ScanState } from '../lib/json-scan.js';
import { Utf8Bound } from '../lib/utf8-bound.js';
import { InputFileError, jsonRow, quoteInput, type InputRow } from './input-rows.js';

type State = 'start' | 'first' | 'value' | 'element' | 'end';

/**
 * Elements of a top-level JSON array, streamed: only the element being read is held in memory.
 * The scanner of src/lib/json-scan.ts finds each element's extent (strings, escapes and
 * nesting); JSON.parse reads it. A malformed element is an invalid row; a broken array
 * structure is an InputFileError. Rows come in batches: those completed by one chunk of input.
 */
export async function* jsonArrayRows(input: AsyncIterable<string>, file: string): AsyncGenerator<InputRow[]> {
  let state: State = 'start';
  let line = 1;
  let elementLine = 0;
  // The element being read, from its first character, when it goes on in the next chunk.
  let pending = '';
  const scan: ScanState = { depth: 0, inString: false };
  // One element larger than cnv writes in one row is almost surely a file that is not what it claims to be.
  const bytes = new Utf8Bound(MAX_WRITE_BYTES);
  let bomChecked = false;

  const fail = (message: string): never => {
    throw new InputFileError(file, message, line);
  };

  for await (const chunk of input) {
    let text = chunk;
    if (!bomChecked && text.length > 0) {
      bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const rows: InputRow[] = [];
    // An element's text stays whole, so the scanner can look back over a string's escapes.
    const s: string = state === 'element' ? pending + text : text;
    let i = state === 'element' ? pending.length : 0;
    let from = 0;
    pending = '';
    while (i < s.length) {
      if (state === 'element') {
        const j = scanJson(s, i, s.length, scan, true);
        line += newlines(s, i, j < 0 ? s.length : j);
        if (j < 0) {
          i = s.length;
          break;
        }
        if (s[j] === '}') fail('unexpected "}"');
        const element = s.slice(from, j);
        if (bytes.over(element.length, () => Buffer.byteLength(element))) fail(`the element starting at line ${elementLine} is larger than ${sizeText(MAX_WRITE_BYTES)}`);
        rows.push(jsonRow(elementLine, element));
        state = s[j] === ',' ? 'value' : 'end';
        i = j + 1;
        continue;
      }
      const c = s[i];
      if (c === '\n') line++;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
        i++;
        continue;
      }
      if (state === 'start') {
        if (c !== '[') fail('expected a JSON array (the file should start with "[")');
        state = 'first';
      } else if (state === 'end') {
        fail(`unexpected ${quoteInput(c)} after the end of the array`);
      } else if (c === ']' && state === 'first') {
        state = 'end';
      } else if (c === ']' || c === ',') {
        fail(state === 'value' ? `expected a value after ",", got ${quoteInput(c)}` : `unexpected ${quoteInput(c)}`);
      } else {
        state = 'element';
        elementLine = line;
        from = i;
        bytes.reset();
        scan.depth = c === '{' || c === '[' ? 1 : 0;
        scan.inString = c === '"';
      }
      i++;
    }
    if (state === 'element') {
      pending = s.slice(from);
      if (bytes.over(pending.length, () => Buffer.byteLength(pending))) fail(`the element starting at line ${elementLine} is larger than ${sizeText(MAX_WRITE_BYTES)}`);
    }
    if (rows.length > 0) yield rows;
  }
  if (state === 'element') {
    if (scan.depth > 0 || scan.inString) fail(`the element starting at line ${elementLine} is not closed`);
    fail('the array is not closed (missing "]")');
  }
  const final = state as State;
  if (final !== 'end') fail(final === 'start' ? 'the file is empty: expected a JSON array' : 'the array is not closed (missing "]")');
}

/** Line breaks in `s` from `from` to `to` (an element's lines, for the next element's line number). */
function newlines(s: string, from: number, to: number): number {
  let count = 0;
  for (let k = s.indexOf('\n', from); k >= 0 && k < to; k = s.indexOf('\n', k + 1)) count++;
  return count;
}
