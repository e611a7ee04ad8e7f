import { InputFileError, jsonRow, quoteInput, type InputRow } from './input-rows.js';

// One element larger than this is almost surely a file that is not what it claims to be.
const MAX_ELEMENT_CHARS = 16 * 1024 * 1024;

type State = 'start' | 'first' | 'value' | 'element' | 'after' | 'end';

/**
 * Elements of a top-level JSON array, streamed: only the element being read is held in memory.
 * The scanner finds each element's extent (strings, escapes and nesting); JSON.parse reads it.
 * A malformed element is an invalid row; a broken array structure is an InputFileError.
 * Rows come in batches: those completed by one chunk of input.
 */
export async function* jsonArrayRows(input: AsyncIterable<string>, file: string): AsyncGenerator<InputRow[]> {
  let state: State = 'start';
  let line = 1;
  let elementLine = 0;
  let parts: string[] = [];
  let size = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let bomChecked = false;

  const fail = (message: string): never => {
    throw new InputFileError(file, message, line);
  };
  const finishElement = (): InputRow => {
    const text = parts.join('');
    parts = [];
    size = 0;
    return jsonRow(elementLine, text);
  };

  for await (const chunk of input) {
    let text = chunk;
    if (!bomChecked && text.length > 0) {
      bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const rows: InputRow[] = [];
    let from = state === 'element' ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (state === 'element') {
        if (c === '\n') line++;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (depth > 0 && (c === '}' || c === ']')) depth--;
        else if (depth === 0 && (c === ',' || c === ']')) {
          parts.push(text.slice(from, i));
          rows.push(finishElement());
          state = c === ',' ? 'value' : 'end';
          from = -1;
        } else if (depth === 0 && c === '}') fail('unexpected "}"');
        continue;
      }
      if (c === '\n') line++;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
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
        depth = c === '{' || c === '[' ? 1 : 0;
        inString = c === '"';
        escaped = false;
      }
    }
    if (state === 'element') {
      parts.push(text.slice(from));
      size += text.length - from;
      if (size > MAX_ELEMENT_CHARS) fail(`the element starting at line ${elementLine} is larger than 16 MB`);
    }
    if (rows.length > 0) yield rows;
  }
  if (state === 'element') {
    if (depth > 0 || inString) fail(`the element starting at line ${elementLine} is not closed`);
    fail('the array is not closed (missing "]")');
  }
  const final = state as State;
  if (final !== 'end') fail(final === 'start' ? 'the file is empty: expected a JSON array' : 'the array is not closed (missing "]")');
}
