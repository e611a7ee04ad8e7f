// A number a double cannot hold (9007199254740993, 0.10000000000000000555) travels as its text
// and is written into JSON as those digits. JSON.stringify cannot write raw text (JSON.rawJSON
// needs a newer V8), so toJSON leaves a marker, a string no input can hold (a random nonce
// behind a NUL), and stringifyJson puts the digits in its place.

// Made when the first ExactNumber is written, not on import: loading node:crypto costs a few
// milliseconds, and most runs never write one (the global Web Crypto loads it on first use).
let nonce: { marker: string; marked: RegExp } | undefined;
function marks() {
  if (nonce) return nonce;
  const hex = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  return (nonce = {
    marker: `\u0000cnv-number-${hex}:`,
    marked: new RegExp(`"\\\\u0000cnv-number-${hex}:([-+.0-9eE]+)"`, 'g'),
  });
}
let marked = 0;

/** A JSON number kept as the digits it was written with. */
export class ExactNumber {
  /** `text` must be a JSON number (`-12`, `3.50`, `1e400`); the constructor does not check. */
  constructor(readonly text: string) {}

  toJSON(): string {
    marked++;
    return marks().marker + this.text;
  }

  toString(): string {
    return this.text;
  }
}

export function isExactNumber(value: unknown): value is ExactNumber {
  return value instanceof ExactNumber;
}

/** JSON.stringify, with every ExactNumber written as its own digits. */
export function stringifyJson(value: unknown, space?: number): string {
  const before = marked;
  const text = JSON.stringify(value, null, space);
  // Only text that holds an ExactNumber is searched: the common body pays nothing.
  return marked === before || text === undefined ? text : text.replace(marks().marked, '$1');
}

/** True when two values are the same JSON number, string, boolean or null (ExactNumbers by their text). */
export function sameScalar(a: unknown, b: unknown): boolean {
  if (a instanceof ExactNumber || b instanceof ExactNumber) return String(a) === String(b) && typeof a === typeof b;
  return a === b;
}

/** A deep copy of JSON data (what structuredClone does for it), ExactNumbers kept as they are (they never change). */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof ExactNumber) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    // A key "__proto__" stays an own member, as JSON.parse makes it.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: cloneJson(v), enumerable: true, writable: true, configurable: true });
    else copy[key] = cloneJson(v);
  }
  return copy as T;
}
