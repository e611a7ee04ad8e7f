import type { DataType } from '../endpoints/fields.js';
import { isIsoDate, isIsoDateTime } from '../dates.js';
import { ExactNumber, stringifyJson } from '../lib/exact-number.js';
import { plainNumber, type NumberConvention } from './number-convention.js';

/** A coerced value, or why the raw value does not fit the data type. */
type Coerced = { ok: true; value: string | number | ExactNumber | boolean | null } | { ok: false; reason: string };

export interface CoerceOptions {
  /** A file's number convention (src/input/number-convention.ts); without one, a number is written as JSON writes it. */
  numbers?: NumberConvention;
}
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
 *   digit it was written with (an ExactNumber when a double would round it); a file's text by its
 *   number convention (`numbers`: `1.234,5`, and `1,234` only once the convention is known), a
 *   flag's as JSON writes numbers; a refusal names every reading;
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
      const text =
        typeof raw === 'string'
          ? raw
              .trim()
              .replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T')
              .replace(/z$/, 'Z')
          : undefined;
      if (text !== undefined && isIsoDateTime(text)) return ok(text);
      return bad(`${show(raw)} is not an ISO 8601 date-time with a zone (like 2025-03-01T12:00:00Z)`);
    }
  }
}

function numberOf(raw: unknown, opts: CoerceOptions): Coerced {
  if (raw instanceof ExactNumber) return ok(raw);
  if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : bad(`${raw} is not a finite number`);
  if (typeof raw !== 'string') return bad(`${show(raw)} is not a number`);
  return opts.numbers ? opts.numbers.read(raw) : plainNumber(raw);
}
