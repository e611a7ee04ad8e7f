import { MAX_WRITE_BYTES, sizeText } from '../limits/limits.js';
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
  const reader = new ArrayReader(file);
  for await (const chunk of input) {
    const rows = reader.read(chunk);
    if (rows.length > 0) yield rows;
  }
  reader.end();
}

/** The array's reading, chunk by chunk: where it is in the array's structure, and the element being read. */
class ArrayReader {
  private state: State = 'start';
  private line = 1;
  private elementLine = 0;
  // The element being read, from its first character, when it goes on in the next chunk.
  private pending = '';
  private readonly scan: ScanState = { depth: 0, inString: false, separators: true };
  // One element larger than cnv writes in one row is almost surely a file that is not what it claims to be.
  private readonly bytes = new Utf8Bound(MAX_WRITE_BYTES);
  private bomChecked = false;

  constructor(private readonly file: string) {}

  /** The rows one chunk of input completes. */
  read(chunk: string): InputRow[] {
    let text = chunk;
    if (!this.bomChecked && text.length > 0) {
      this.bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const rows: InputRow[] = [];
    // An element's text stays whole, so the scanner can look back over a string's escapes.
    const s: string = this.state === 'element' ? this.pending + text : text;
    let i = this.state === 'element' ? this.pending.length : 0;
    let from = 0;
    this.pending = '';
    while (i < s.length) {
      if (this.state === 'element') {
        const j = this.elementEnd(s, i);
        if (j < 0) break;
        rows.push(this.element(s.slice(from, j)));
        this.state = s[j] === ',' ? 'value' : 'end';
        i = j + 1;
        continue;
      }
      if (this.between(s[i])) from = i;
      i++;
    }
    if (this.state === 'element') {
      this.pending = s.slice(from);
      this.checkSize(this.pending);
    }
    return rows;
  }

  /** At the end of the input: the array must be closed. */
  end(): void {
    if (this.state === 'element') {
      if (this.scan.depth > 0 || this.scan.inString)
        this.fail(`the element starting at line ${this.elementLine} is not closed`);
      this.fail('the array is not closed (missing "]")');
    }
    if (this.state !== 'end')
      this.fail(
        this.state === 'start' ? 'the file is empty: expected a JSON array' : 'the array is not closed (missing "]")',
      );
  }

  /** Where the element being read ends in `s` (its `,` or `]`), from `i`; -1 when it goes on past the chunk. */
  private elementEnd(s: string, i: number): number {
    const j = scanJson(s, i, s.length, this.scan);
    this.line += newlines(s, i, j < 0 ? s.length : j);
    if (j >= 0 && s[j] === '}') this.fail('unexpected "}"');
    return j;
  }

  private element(text: string): InputRow {
    this.checkSize(text);
    return jsonRow(this.elementLine, text);
  }

  /** A character outside the elements: whitespace, the array's brackets and commas; true when it starts an element. */
  private between(c: string): boolean {
    if (c === '\n') this.line++;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') return false;
    if (this.state === 'start') {
      if (c !== '[') this.fail('expected a JSON array (the file should start with "[")');
      this.state = 'first';
    } else if (this.state === 'end') {
      this.fail(`unexpected ${quoteInput(c)} after the end of the array`);
    } else if (c === ']' && this.state === 'first') {
      this.state = 'end';
    } else if (c === ']' || c === ',') {
      this.fail(
        this.state === 'value' ? `expected a value after ",", got ${quoteInput(c)}` : `unexpected ${quoteInput(c)}`,
      );
    } else {
      this.state = 'element';
      this.elementLine = this.line;
      this.bytes.reset();
      this.scan.depth = c === '{' || c === '[' ? 1 : 0;
      this.scan.inString = c === '"';
      return true;
    }
    return false;
  }

  private checkSize(text: string): void {
    if (this.bytes.over(text.length, () => Buffer.byteLength(text)))
      this.fail(`the element starting at line ${this.elementLine} is larger than ${sizeText(MAX_WRITE_BYTES)}`);
  }

  private fail(message: string): never {
    throw new InputFileError(this.file, message, this.line);
  }
}

/** Line breaks in `s` from `from` to `to` (an element's lines, for the next element's line number). */
function newlines(s: string, from: number, to: number): number {
  let count = 0;
  for (let k = s.indexOf('\n', from); k >= 0 && k < to; k = s.indexOf('\n', k + 1)) count++;
  return count;
}
