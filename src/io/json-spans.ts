/**
 * Where the elements of one array sit in a JSON text, without parsing them: the export writes
 * each NDJSON row as the text the API sent (a slice of the answer) instead of stringifying again
 * the object JSON.parse made of it, which was a third of its time.
 *
 * `path` names object members from the top (`['data', 'contacts']`). Returns the [start, end)
 * range of every element of the array there, or undefined when the text does not have that
 * shape (the caller then serialises the parsed rows itself). The text is assumed to be valid
 * JSON (JSON.parse accepted it): only structure is tracked.
 */
export function arrayElementSpans(text: string, path: readonly string[]): Array<[number, number]> | undefined {
  let i = skipSpace(text, 0);
  for (const key of path) {
    if (text.charCodeAt(i) !== LBRACE) return undefined;
    i = memberValue(text, i, key);
    if (i < 0) return undefined;
  }
  if (text.charCodeAt(i) !== LBRACKET) return undefined;
  const spans: Array<[number, number]> = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === RBRACKET) return spans;
  for (;;) {
    const end = skipValue(text, i);
    if (end < 0) return undefined;
    spans.push([i, end]);
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === COMMA) i = skipSpace(text, i + 1);
    else return c === RBRACKET ? spans : undefined;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(t: string, i: number): number {
  while (i < t.length && isSpace(t.charCodeAt(i))) i++;
  return i;
}

/** At an opening quote: the index after the closing one, or -1. */
function skipString(t: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = t.indexOf('"', j);
    if (q < 0) return -1;
    let slashes = 0;
    for (let k = q - 1; k > i && t.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** At the start of a value: the index just after it, or -1. */
function skipValue(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) return skipString(t, i);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    for (let j = i; j < t.length; j++) {
      const d = t.charCodeAt(j);
      if (d === QUOTE) {
        const end = skipString(t, j);
        if (end < 0) return -1;
        j = end - 1;
      } else if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  for (; j < t.length; j++) {
    const d = t.charCodeAt(j);
    if (d === COMMA || d === RBRACE || d === RBRACKET || isSpace(d)) break;
  }
  return j > i ? j : -1;
}

/** At an object's opening brace: where the value of member `key` starts, or -1. */
function memberValue(t: string, i: number, key: string): number {
  const wanted = JSON.stringify(key);
  i = skipSpace(t, i + 1);
  if (t.charCodeAt(i) === RBRACE) return -1;
  for (;;) {
    if (t.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = skipString(t, i);
    if (keyEnd < 0) return -1;
    const matches = keyEnd - i === wanted.length && t.startsWith(wanted, i);
    i = skipSpace(t, keyEnd);
    if (t.charCodeAt(i) !== COLON) return -1;
    i = skipSpace(t, i + 1);
    if (matches) return i;
    i = skipValue(t, i);
    if (i < 0) return -1;
    i = skipSpace(t, i);
    if (t.charCodeAt(i) === COMMA) i = skipSpace(t, i + 1);
    else return -1;
  }
}
