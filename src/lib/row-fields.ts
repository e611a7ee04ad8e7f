import { mix } from './content-hash.js';
import { nameHash, type MemberKeys } from './member-keys.js';

// A contact row's top-level `fields` object in its JSON text, summed as (key, value) pairs: what
// src/lib/keyed-hash.ts hashes instead of the object's text. Read backwards from the row's end
// first (the export puts `fields` last): only that object is read, each unit once, hashed as it
// is read. Any other layout is read forwards through the whole text. Each member counts as the
// hash of its value's units as sent (from the last) with its key's lanes (its name looked up in
// `names`: the label the page was read under), or its name's when no key is known; the members
// are summed, so their order does not count either. VALUE_LANES: a value's units go to two lanes
// in turn, counted from its last unit (the last to the first lane, the one before it to the
// second...): one multiply a unit, and where the value stands in the text does not count.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** `fields`, the member whose names are labels. */
const FIELDS = [0x66, 0x69, 0x65, 0x6c, 0x64, 0x73];

/** What the last `sumFields` found: the object's `{`, the index after its `}`, its members' sums and count (module state). */
export const found = { open: -1, close: -1, sumA: 0, sumB: 0, count: 0 };

/** Sums the row's `fields` object in u[0, n) (the row's text, `{` to `}`) into `found`; false when it has none. */
export function sumFields(u: Uint16Array, n: number, names: MemberKeys | undefined): boolean {
  return fromEnd(u, n, names) || fromStart(u, n, names);
}

// JSON's whitespace (space, tab, LF, CR) in one comparison: no other unit at or below a space
// stands outside a string of valid JSON.
const isSpace = (c: number) => c <= 0x20;

/** Whether the quote at `k` is escaped (an odd run of backslashes before it). */
function escaped(u: Uint16Array, k: number): boolean {
  let slashes = 0;
  while (k - 1 - slashes >= 0 && u[k - 1 - slashes] === BACKSLASH) slashes++;
  return (slashes & 1) === 1;
}

function keep(open: number, close: number, sumA: number, sumB: number, count: number): true {
  found.open = open;
  found.close = close;
  found.sumA = sumA;
  found.sumB = sumB;
  found.count = count;
  return true;
}

/**
 * A member's share of the first sum: its value's lanes (`va` over `length` units) with its key's
 * (`names`' entry for its name, when it has one) or its name's hash `h`.
 */
function memberA(va: number, length: number, h: number, entry: number, names: MemberKeys | undefined): number {
  const key = entry >= 0 ? names!.keyA[entry] : 0x3c6ef372 ^ h;
  return mix(Math.imul(va ^ length, 0x9e3779b1) ^ key, 0x85ebca6b);
}

/** Its share of the second sum (`a`: its share of the first). */
function memberB(vb: number, a: number, h: number, entry: number, names: MemberKeys | undefined): number {
  const key = entry >= 0 ? names!.keyB[entry] : 0x7f4a7c15 ^ Math.imul(h, 0x9e3779b1);
  return mix(vb ^ key ^ a, 0xc2b2ae35);
}

/** The entry of a name sent with escapes: decoded (rare), so a label the server escapes otherwise is still known. */
function decoded(names: MemberKeys, u: Uint16Array, from: number, to: number): number {
  try {
    return names.findText(JSON.parse(`"${String.fromCharCode(...u.subarray(from, to))}"`) as string);
  } catch {
    return -1;
  }
}

/**
 * `fields` as the row's last member, read backwards: the row's `}`, the object's `}` before it,
 * its members (strings and plain values only) back to its `{`, each hashed as it is read, and
 * the token `"fields"` and a colon before that (after the row's `{` or a comma: a member of the
 * row, as the row's `}` closes it). False when anything else is met. (Whitespace is any unit up
 * to a space: no other stands outside a string of valid JSON.)
 */
function fromEnd(u: Uint16Array, n: number, names: MemberKeys | undefined): boolean {
  let i = n - 1;
  while (u[i] <= 0x20 && i > 0) i--;
  if (u[i--] !== CLOSE) return false;
  while (u[i] <= 0x20 && i > 0) i--;
  if (u[i] !== CLOSE) return false;
  const close = i + 1;
  let sumA = 0;
  let sumB = 0;
  let count = 0;
  for (i--; ;) {
    let c = u[i];
    while (c <= 0x20 && i > 0) c = u[--i];
    if (c === OPEN) break;
    if (c === CLOSE || c === CLOSE_LIST || c === COMMA || c === COLON) return false;
    // The value, back to its opening quote or to the colon before it, each unit to a lane (VALUE_LANES)
    const valueTo = i + 1;
    let va = 0x811c9dc5;
    let vb = 0x9747b28c;
    if (c === QUOTE) {
      for (;;) {
        if (((valueTo - i) & 1) === 1) va = Math.imul(va ^ c, 0x01000193);
        else vb = Math.imul(vb ^ c, 0x5bd1e995);
        if (i <= 0) return false;
        c = u[--i];
        if (c === QUOTE && (u[i - 1] !== BACKSLASH || !escaped(u, i))) break;
      }
      if (((valueTo - i) & 1) === 1) va = Math.imul(va ^ c, 0x01000193);
      else vb = Math.imul(vb ^ c, 0x5bd1e995);
      c = u[--i];
    } else {
      while (c !== COLON && c > 0x20) {
        if (((valueTo - i) & 1) === 1) va = Math.imul(va ^ c, 0x01000193);
        else vb = Math.imul(vb ^ c, 0x5bd1e995);
        if (i <= 0) return false;
        c = u[--i];
      }
    }
    const length = valueTo - i - 1;
    while (c <= 0x20 && i > 0) c = u[--i];
    if (c !== COLON) return false;
    c = u[--i];
    while (c <= 0x20 && i > 0) c = u[--i];
    if (c !== QUOTE) return false;
    // The name, back to its opening quote.
    const to = i;
    let h = 0x811c9dc5;
    let esc = false;
    for (;;) {
      if (i <= 0) return false;
      c = u[--i];
      if (c === QUOTE && (u[i - 1] !== BACKSLASH || !escaped(u, i))) break;
      if (c === BACKSLASH) esc = true;
      h = Math.imul(h ^ c, 0x01000193);
    }
    const entry = names === undefined ? -1 : esc ? decoded(names, u, i + 1, to) : names.find(h >>> 0);
    const a = memberA(va, length, h, entry, names);
    sumA = (sumA + a) | 0;
    sumB = (sumB + memberB(vb, a, h, entry, names)) | 0;
    count++;
    c = u[--i];
    while (c <= 0x20 && i > 0) c = u[--i];
    if (c === COMMA) i--;
    else if (c !== OPEN) return false;
  }
  if (!isFieldsMember(u, i)) return false;
  return keep(i, close, sumA, sumB, count);
}

/** Whether the `{` at `open` is the value of a member `"fields"` that follows the row's `{` or a comma. */
function isFieldsMember(u: Uint16Array, open: number): boolean {
  let i = open - 1;
  while (i > 0 && isSpace(u[i])) i--;
  if (u[i--] !== COLON) return false;
  while (i > 0 && isSpace(u[i])) i--;
  if (u[i] !== QUOTE || i < 8 || u[i - 7] !== QUOTE) return false;
  for (let k = 0; k < 6; k++) if (u[i - 6 + k] !== FIELDS[k]) return false;
  i -= 8;
  while (i > 0 && isSpace(u[i])) i--;
  return u[i] === COMMA || u[i] === OPEN;
}

/** Any layout, read forwards: the row's `fields` member (at depth 1), then its members, each hashed as `fromEnd` does. */
function fromStart(u: Uint16Array, n: number, names: MemberKeys | undefined): boolean {
  const open = fieldsObject(u, n);
  if (open < 0) return false;
  let sumA = 0;
  let sumB = 0;
  let count = 0;
  for (let i = open + 1; ;) {
    while (i < n && (isSpace(u[i]) || u[i] === COMMA)) i++;
    if (i >= n) return false;
    if (u[i] === CLOSE) {
      return keep(open, i + 1, sumA, sumB, count);
    }
    if (u[i] !== QUOTE) return false;
    const to = stringEnd(u, i + 1, n);
    let colon = to + 1;
    while (colon < n && isSpace(u[colon])) colon++;
    if (u[colon] !== COLON) return false;
    let from = colon + 1;
    while (from < n && isSpace(u[from])) from++;
    const end = valueEnd(u, from, n);
    let va = 0x811c9dc5;
    let vb = 0x9747b28c;
    for (let k = end - 1; k >= from; k--) {
      if (((end - k) & 1) === 1) va = Math.imul(va ^ u[k], 0x01000193);
      else vb = Math.imul(vb ^ u[k], 0x5bd1e995);
    }
    const h = nameHash(u, i + 1, to);
    const esc = u.subarray(i + 1, to).includes(BACKSLASH);
    const entry = names === undefined ? -1 : esc ? decoded(names, u, i + 1, to) : names.find(h);
    const a = memberA(va, end - from, h, entry, names);
    sumA = (sumA + a) | 0;
    sumB = (sumB + memberB(vb, a, h, entry, names)) | 0;
    count++;
    i = end;
  }
}

/** Where the row's `fields` member opens its object (its `{`), read forwards; -1 when it has none. */
function fieldsObject(u: Uint16Array, n: number): number {
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = u[i];
    if (c === QUOTE) {
      const first = i + 1;
      i = stringEnd(u, first, n);
      if (depth !== 1 || i - first !== 6 || FIELDS.some((f, k) => u[first + k] !== f)) continue;
      let at = i + 1;
      while (at < n && isSpace(u[at])) at++;
      if (u[at] !== COLON) continue;
      at++;
      while (at < n && isSpace(u[at])) at++;
      return u[at] === OPEN ? at : -1;
    } else if (c === OPEN || c === OPEN_LIST) depth++;
    else if (c === CLOSE || c === CLOSE_LIST) depth--;
  }
  return -1;
}

/** The index of the quote closing the string whose first unit is at `i` (n when it never closes). */
function stringEnd(u: Uint16Array, i: number, n: number): number {
  while (i < n) {
    const c = u[i];
    if (c === QUOTE) return i;
    i += c === BACKSLASH ? 2 : 1;
  }
  return n;
}

/** Where the value starting at `i` ends (just after it). */
function valueEnd(u: Uint16Array, i: number, n: number): number {
  const c = u[i];
  if (c === QUOTE) return stringEnd(u, i + 1, n) + 1;
  if (c === OPEN || c === OPEN_LIST) {
    let depth = 0;
    for (; i < n; i++) {
      const d = u[i];
      if (d === QUOTE) i = stringEnd(u, i + 1, n);
      else if (d === OPEN || d === OPEN_LIST) depth++;
      else if ((d === CLOSE || d === CLOSE_LIST) && --depth === 0) return i + 1;
    }
    return n;
  }
  while (i < n && !isSpace(u[i]) && u[i] !== COMMA && u[i] !== CLOSE && u[i] !== CLOSE_LIST) i++;
  return i;
}
