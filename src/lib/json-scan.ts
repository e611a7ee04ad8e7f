const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the quote that ends the string being read from `from`, or -1 if not yet arrived. */
export function closingQuote(s: string, from: number): number {
  for (;;) {
    const j = s.indexOf('"', from);
    if (j < 0) return -1;
    let k = j - 1;
    while (s.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j;
    from = j + 1;
  }
}

/**
 * A scan through a JSON value: where it stands when its text stops (nesting depth, inside a
 * string), and what it looks for (kept with it, as every call of one scan looks for the same).
 */
export interface ScanState {
  depth: number;
  inString: boolean;
  /** Stop at the first `,` `]` or `}` at depth 0 (what ends an element of an array). */
  separators?: boolean;
  /** Deeper nesting returns TOO_DEEP. */
  maxDepth?: number;
}

/** What `scanJson` returns when the value nests deeper than its `maxDepth`. */
export const TOO_DEEP = -2;

/**
 * The JSON scanner: finds where a value's text ends, for the export page rows (JsonRowSplitter
 * in ./json-rows.ts), the elements of an input file's array (src/input/json-array-rows.ts) and the
 * depth check of input rows (nestsDeeper in src/input/input-rows.ts). From `i`, it skips
 * strings (by `indexOf`, so a string costs no step per character) and counts `{ [` against
 * `} ]`, and returns the index of the bracket that brings the depth back to 0, or, with
 * `separators`, instead of that, of the first `,` `]` or `}` met at depth 0 (what ends an
 * element of an array). -1: the text ended first, and `state` holds where the scan stands; the
 * next call must pass text that still holds the current string from its opening quote (the
 * quote's escapes are counted backwards). Brackets are counted, not matched: JSON.parse of the
 * value's text judges it.
 */
export function scanJson(s: string, i: number, n: number, state: ScanState): number {
  const separators = state.separators === true;
  const maxDepth = state.maxDepth ?? Infinity;
  let depth = state.depth;
  if (state.inString) {
    const j = closingQuote(s, i);
    if (j < 0) return -1;
    state.inString = false;
    i = j + 1;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const j = closingQuote(s, i + 1);
      if (j < 0) {
        state.inString = true;
        state.depth = depth;
        return -1;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return TOO_DEEP;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) {
        state.depth = 0;
        return i;
      }
      if (--depth === 0 && !separators) {
        state.depth = 0;
        return i;
      }
    } else if (c === 0x2c && depth === 0) {
      state.depth = 0;
      return i;
    }
  }
  state.depth = depth;
  return -1;
}

/**
 * A JSON value's text on one line, for NDJSON: as it is when it holds no line break, otherwise
 * with the whitespace between its tokens dropped (a string holds no raw line break: JSON escapes
 * them), so members, numbers and escapes stay exactly as written. `text` must be a whole value.
 */
export function oneLine(text: string): string {
  if (text.indexOf('\n') < 0 && text.indexOf('\r') < 0) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const j = closingQuote(text, i + 1);
      if (j < 0) break;
      i = j;
    } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}

/**
 * How many object members a valid JSON text writes: each key is a string followed by `:`, and a
 * `"` inside a string is escaped, so an unescaped `"` before a `:` ends a key. Found by a native
 * regular expression, so a row costs far less than a scan of every character: where it equals
 * the members JSON.parse kept, no key was named twice (and `repeatedKey` is not needed).
 */
export function keysWritten(text: string): number {
  let n = 0;
  const keyEnd = /"[ \t\r\n]*:/g;
  for (let m = keyEnd.exec(text); m; m = keyEnd.exec(text)) {
    let k = m.index - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((m.index - 1 - k) % 2 === 0) n++;
  }
  return n;
}

/** An object being read by `repeatedKey`: its keys so far (undefined for an array), and the last one. */
interface KeyFrame {
  keys: Set<string> | undefined;
  last: string;
}

/**
 * The first key that one object of a JSON text names twice, with the keys of the objects around
 * it (`fields.email`), or undefined when none does. JSON.parse keeps the last of two such
 * members without a word; a row that names one key twice is refused instead. Keys compare as
 * JSON.parse reads them (`"a"` and `"\u0061"` are one key). `text` must be valid JSON (parsed
 * before); strings are skipped by `indexOf`.
 */
export function repeatedKey(text: string): string | undefined {
  const stack: KeyFrame[] = [];
  let top: KeyFrame | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const j = closingQuote(text, i + 1);
      if (j < 0) return undefined;
      if (expectKey && top?.keys) {
        const raw = text.slice(i + 1, j);
        const key = raw.indexOf('\\') < 0 ? raw : (JSON.parse(text.slice(i, j + 1)) as string);
        if (top.keys.has(key))
          return [
            ...stack
              .slice(0, -1)
              .filter((f) => f.keys)
              .map((f) => f.last),
            key,
          ].join('.');
        top.keys.add(key);
        top.last = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      top = { keys: c === 0x7b ? new Set() : undefined, last: '' };
      stack.push(top);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      top = stack[stack.length - 1];
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = top?.keys !== undefined;
    }
  }
  return undefined;
}
