import type { DataType } from '../api/fields.js';
import { isIsoDate, isIsoDateTime } from '../dates.js';

/** A coerced value, or why the raw value does not fit the data type. */
export type Coerced = { ok: true; value: string | number | boolean | null } | { ok: false; reason: string };

const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

const ok = (value: string | number | boolean | null): Coerced => ({ ok: true, value });
const bad = (reason: string): Coerced => ({ ok: false, reason });
const show = (v: unknown) => JSON.stringify(v);

/**
 * Coerces one value (a CSV string, or a JSON value) to a field's data type:
 * - null stays null (it clears the field);
 * - STRING: strings as they are, numbers and booleans as their text;
 * - NUMBER: a decimal number (`42`, `-1.5`, `2e3`, surrounding spaces ignored);
 * - BOOLEAN: true/false, yes/no, y/n, 1/0 in any case;
 * - DATE: a real calendar date YYYY-MM-DD;
 * - DATETIME: ISO 8601 with a zone (Z or an offset); a space instead of T is accepted and
 *   replaced, the rest is sent as written.
 */
export function coerceValue(raw: unknown, dataType: DataType): Coerced {
  if (raw === null) return ok(null);
  switch (dataType) {
    case 'STRING':
      if (typeof raw === 'string') return ok(raw);
      if (typeof raw === 'number' || typeof raw === 'boolean') return ok(String(raw));
      return bad(`${show(raw)} is not a string`);
    case 'NUMBER':
      if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : bad(`${raw} is not a finite number`);
      if (typeof raw === 'string' && NUMBER_RE.test(raw.trim())) {
        // 1e400 parses to Infinity, which JSON would send as null and so clear the field.
        const n = Number(raw.trim());
        return Number.isFinite(n) ? ok(n) : bad(`${show(raw)} is out of range for a number`);
      }
      return bad(`${show(raw)} is not a number`);
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
