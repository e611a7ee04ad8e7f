import { InvalidRowError } from '../batch/row-body.js';
import type { InputRow } from '../input/input-rows.js';
import { isExactNumber, stringifyJson } from '../lib/exact-number.js';

/**
 * A record's key from its key properties (a SCHEMA's key_properties, or the stream's own in the
 * config): one property's value as text (a number by its digits), several as a JSON array of
 * them. A key property missing or blank makes the row invalid (`missing_identifier`, never sent).
 * Undefined without key properties (the kind keys the row its own way).
 */
export function recordKeyReader(properties: readonly string[]): (row: InputRow) => string | undefined {
  if (properties.length === 0) return () => undefined;
  return (row) => {
    const parts = properties.map((property) => {
      const text = keyText(row.values?.[property]);
      if (text === undefined)
        throw new InvalidRowError(`key property ${JSON.stringify(property)}: missing or blank`, 'missing_identifier');
      return text;
    });
    const key = parts.length === 1 ? parts[0] : JSON.stringify(parts);
    // The stream's own entries in the ledger start with NUL: no key may.
    if (key.startsWith('\u0000'))
      throw new InvalidRowError('the key starts with a NUL character', 'missing_identifier');
    return key;
  };
}

function keyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isExactNumber(value)) return value.text;
  if (value === null || value === undefined) return undefined;
  return stringifyJson(value);
}
