import { closingQuote, scanJson } from '../lib/json-scan.js';

/** What the snapshot index needs of one exported contact row. */
interface RowKeys {
  id: string;
  /** null when the row has none (or not a string). */
  email: string | null;
}

const WANTED = new Set(['id', 'email']);

/**
 * The id and email of one export row (one NDJSON line), read from its top-level
 * members only: a field labelled "email" inside `fields` is never taken for the contact's.
 * Nested values are skipped by the JSON scanner, strings by `indexOf`; only the three wanted
 * values are decoded. Undefined when the line is not an object with a string id.
 */
export function rowKeys(line: string): RowKeys | undefined {
  return fastRowKeys(line) ?? walkRowKeys(line);
}

const ID_START = '{"id":"';

/**
 * The common row, as the API writes it: compact, `id` first, `email` before any nested value. A `"`
 * in a JSON string is always escaped, so `,"email":` is a member's key wherever it stands, and a
 * top-level one when no `{` or `[` comes before it. Undefined when the row is not that shape (the
 * member walk reads it then).
 */
function fastRowKeys(line: string): RowKeys | undefined {
  if (!line.startsWith(ID_START) || line.charCodeAt(line.length - 1) !== 0x7d) return undefined;
  const idEnd = line.indexOf('"', ID_START.length);
  if (idEnd < 0) return undefined;
  const id = line.slice(ID_START.length, idEnd);
  if (id === '' || id.includes('\\')) return undefined;
  const brace = line.indexOf('{', 1);
  const bracket = line.indexOf('[', 1);
  const nested = Math.min(brace < 0 ? line.length : brace, bracket < 0 ? line.length : bracket);
  const email = memberValue(line, ',"email":', nested);
  if (email === undefined) return undefined;
  return { id, email };
}

/**
 * The value of a top-level member found by its `,"key":` text before `limit`: a string without
 * escapes, or null; else undefined.
 */
function memberValue(line: string, key: string, limit: number): string | null | undefined {
  const at = line.indexOf(key);
  if (at < 0 || at > limit) return undefined;
  const start = at + key.length;
  if (line.startsWith('null', start)) return null;
  if (line.charCodeAt(start) !== 0x22) return undefined;
  const end = line.indexOf('"', start + 1);
  if (end < 0 || end > limit) return undefined;
  const value = line.slice(start + 1, end);
  return value.includes('\\') ? undefined : value;
}

/** Every top-level member, walked: any member order, spacing and escapes. */
function walkRowKeys(line: string): RowKeys | undefined {
  const n = line.length;
  let i = skipSpace(line, 0);
  if (line.charCodeAt(i) !== 0x7b) return undefined;
  i = skipSpace(line, i + 1);
  if (line.charCodeAt(i) === 0x7d) return undefined;
  const found: Record<string, unknown> = {};
  while (i < n) {
    if (line.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = closingQuote(line, i + 1);
    if (keyEnd < 0) return undefined;
    const key = line.slice(i + 1, keyEnd);
    i = skipSpace(line, keyEnd + 1);
    if (line.charCodeAt(i) !== 0x3a) return undefined;
    i = skipSpace(line, i + 1);
    const valueEnd = endOfValue(line, i);
    if (valueEnd < 0) return undefined;
    if (WANTED.has(key)) found[key] = decode(line.slice(i, valueEnd));
    i = skipSpace(line, valueEnd);
    const c = line.charCodeAt(i);
    if (c === 0x7d) break;
    if (c !== 0x2c) return undefined;
    i = skipSpace(line, i + 1);
  }
  const { id, email } = found;
  if (typeof id !== 'string' || id === '') return undefined;
  return { id, email: typeof email === 'string' ? email : null };
}

/** Index just past the value starting at `i`, or -1 when the text ends first. */
function endOfValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) {
    const end = closingQuote(s, i + 1);
    return end < 0 ? -1 : end + 1;
  }
  if (c === 0x7b || c === 0x5b) {
    const end = scanJson(s, i + 1, s.length, { depth: 1, inString: false });
    return end < 0 ? -1 : end + 1;
  }
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x20 || d === 0x09 || d === 0x0d || d === 0x0a) break;
    j++;
  }
  return j === i ? -1 : j;
}

function decode(text: string): unknown {
  if (text.charCodeAt(0) === 0x22 && !text.includes('\\')) return text.slice(1, -1);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function skipSpace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return i;
    i++;
  }
}
