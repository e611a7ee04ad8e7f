import type { DataType } from '../api/fields.js';
import { isIsoDate, isIsoDateTime } from '../dates.js';
import { exactNumber } from '../http/exact-json.js';
import { ExactNumber, stringifyJson } from '../lib/exact-number.js';

/** A coerced value, or why the raw value does not fit the data type. */
type Coerced = { ok: true; value: string | number | ExactNumber | boolean | null } | { ok: false; reason: string };

export interface CoerceOptions {
  /** --decimal-comma: a NUMBER written `3,5` or `1.234,5` (German, French... spreadsheets). */
  decimalComma?: boolean;
}

// `3,5`, `-0,25`, `1.234,5`, `1.234.567`: a decimal comma, with dots grouping thousands (a group
// never starts a number with 0: `0.125` is no thousands group).
const DECIMAL_COMMA = /^[+-]?([1-9]\d{0,2}(\.\d{3})+|\d+)(,\d+)?$/;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

const ok = (value: string | number | ExactNumber | boolean | null): Coerced => ({ ok: true, value });
const bad = (reason: string): Coerced => ({ ok: false, reason });
const show = (v: unknown) => stringifyJson(v);

/**
 * Coerces one value (a CSV string, or a JSON value) to a field's data type:
 * - null stays null (it clears the field);
 * - STRING: strings as they are, numbers and booleans as their text;
 * - NUMBER: a decimal number (`42`, `-1.5`, `2e3`, surrounding spaces ignored), sent with every
 *   digit it was written with (an ExactNumber when a double would round it); `3,5` only with
 *   `decimalComma`, else refused with a hint;
 * - BOOLEAN: true/false, yes/no, y/n, 1/0 in any case;
 * - DATE: a real calendar date YYYY-MM-DD;
 * - DATETIME: ISO 8601 with a zone (Z or an offset); a space instead of T is accepted and
 *   replaced, the rest is sent as written.
 */
export function coerceValue(raw: unknown, dataType: DataType, opts: CoerceOptions = {}): Coerced {
  if (raw === null) return ok(null);
  switch (dataType) {
    case 'STRING':
      if (typeof raw === 'string') return ok(raw);
      if (typeof raw === 'number' || typeof raw === 'boolean' || raw instanceof ExactNumber) return ok(String(raw));
      return bad(`${show(raw)} is not a string`);
    case 'NUMBER':
      return numberOf(raw, opts);
    case 'BOOLEAN': {
      if (typeof raw === 'boolean') return ok(raw);
      const word = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim().toLowerCase() : undefined;
      if (word !== undefined && TRUE_WORDS.has(word)) return ok(true);
      if (word !== undefined && FALSE_WORDS.has(word)) return ok(false);
      return bad(`${show(raw)} is not a boolean (true/false, yes/no, 1/0)`);
    }
    case 'DATE':
      if (typeof raw === 'string' && isIsoDate(raw.trim())) return ok(raw.trim());
      return bad(`${show(raw)} is not a date YYYY-MM-DD`);
    case 'DATETIME': {
      // A space may stand for the T, and a lower-case z for Z.
      const text = typeof raw === 'string' ? raw.trim().replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T').replace(/z$/, 'Z') : undefined;
      if (text !== undefined && isIsoDateTime(text)) return ok(text);
      return bad(`${show(raw)} is not an ISO 8601 date-time with a zone (like 2025-03-01T12:00:00Z)`);
    }
  }
}

function numberOf(raw: unknown, opts: CoerceOptions): Coerced {
  if (raw instanceof ExactNumber) return ok(raw);
  if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : bad(`${raw} is not a finite number`);
  if (typeof raw !== 'string') return bad(`${show(raw)} is not a number`);
  const text = raw.trim();
  if (opts.decimalComma) {
    // Declared: a dot only ever groups thousands, so a dot-decimal (0.125, 1.5) is refused, not misread.
    if (DECIMAL_COMMA.test(text)) return ok(exactNumber(text.replace(/\./g, '').replace(',', '.'))!);
    if (!text.includes('.')) {
      const n = exactNumber(text);
      if (n !== undefined) return ok(n);
    }
    return bad(`${show(raw)} is not a number written with a decimal comma (--decimal-comma reads 3,5 and 1.234,5)`);
  }
  const n = exactNumber(text);
  if (n !== undefined) return ok(n);
  return bad(DECIMAL_COMMA.test(text) && text.includes(',') ? `${show(raw)} is not a number (a decimal comma? --decimal-comma reads 3,5 as 3.5)` : `${show(raw)} is not a number`);
}
