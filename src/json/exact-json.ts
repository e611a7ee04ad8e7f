import { isNumber, isSafeNumber, parse } from 'lossless-json';
import { ExactNumber } from '../lib/exact-number.js';

// JSON text read with every digit: what a user wrote reaches the server unchanged, and what the
// server sent reaches the user unchanged. A number a double cannot hold (9007199254740993,
// 1e400) is kept as its digits (ExactNumber) instead of being rounded. A folder of its own, below
// http/ (which reads answers with it), input/, the emulator and the layers above.

// JSON.parse is exact unless a number has more than 15 significant digits or a three-digit
// exponent: only text holding such a run where a value starts (the start, or after `:`, `[` or
// `,`; inside a string it is harmless) takes the lossless parser, about ten times slower. A run
// anywhere matched every UUID with an `e` and three digits, so batch answers all went the slow way.
const MAYBE_INEXACT = /(?:^|[:[,])\s*-?\d(?:[\d.]{15}|[\d.]*[eE][+-]?\d{3})/;

/** Whether JSON text may hold a number JSON.parse would round (and so takes the lossless parser). */
export function mayHoldInexactNumber(text: string): boolean {
  return MAYBE_INEXACT.test(text);
}

const parseNumber = (text: string): number | ExactNumber => (isSafeNumber(text) ? Number(text) : new ExactNumber(text));
// As JSON.parse: the last of two equal keys wins.
const OPTIONS = { parseNumber, onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue };

/** JSON.parse, except that numbers a double cannot hold exactly become ExactNumbers. Throws SyntaxError. */
export function parseJson(text: string): unknown {
  if (!mayHoldInexactNumber(text)) return JSON.parse(text);
  // Invalid JSON gets JSON.parse's error (what the messages quote), not the other parser's.
  const plain: unknown = JSON.parse(text);
  return typeof plain === 'string' || typeof plain === 'boolean' || plain === null ? plain : parse(text, null, OPTIONS);
}

/** A value as JSON when it parses (numbers exact), else the text itself: `-F score=42`, a CSV cell. */
export function looseJson(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/**
 * A decimal number written in a file or a flag (`42`, `-1.5`, `+3`, `.5`, `2e3`, `007`) as the
 * JSON number with the same digits: a number when a double holds it exactly, else an
 * ExactNumber. Undefined when the text is not such a number. The digits are only respelled
 * (sign, leading zeros, a bare point), never rounded.
 */
export function exactNumber(text: string): number | ExactNumber | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([eE][+-]?\d+)?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const [, sign, whole, fraction, exponent] = m;
  const integer = whole.replace(/^0+(?=\d)/, '') || '0';
  const json = `${sign === '-' ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}${exponent ?? ''}`;
  if (!isNumber(json)) return undefined;
  return parseNumber(json);
}
