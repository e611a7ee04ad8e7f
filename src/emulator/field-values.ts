import { isExactNumber, sameScalar } from '../lib/exact-number.js';
import { EmulatorError } from './error-answer.js';
import { setOwn } from '../lib/own-key.js';
import type { StoredField, FieldMap, FieldValue, ObjectType } from './model.js';
import type { BusinessStore } from './store.js';
import { isIsoDate, isIsoDateTime } from './validate.js';

/** One validated write: the definition and the value to store (null clears). */
export interface FieldWrite {
  def: StoredField;
  value: FieldValue;
}

/** Why a value does not fit a field's dataType, or undefined when it fits. Null always fits. */
function valueProblem(def: StoredField, value: unknown): string | undefined {
  if (value === null) return undefined;
  switch (def.dataType) {
    case 'STRING':
      return typeof value === 'string' ? undefined : 'expects a string';
    case 'NUMBER':
      return (typeof value === 'number' && Number.isFinite(value)) || isExactNumber(value)
        ? undefined
        : 'expects a number';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : 'expects a boolean';
    case 'DATE':
      return typeof value === 'string' && isIsoDate(value) ? undefined : 'expects a date YYYY-MM-DD';
    case 'DATETIME':
      return typeof value === 'string' && isIsoDateTime(value) ? undefined : 'expects an ISO 8601 date-time with zone';
  }
}

/**
 * Validates a `fields`-style map against the writable definitions of one object type.
 * Throws 400 invalid_field naming the first bad key (unknown, read-only or wrong type).
 */
export function validateFieldWrites(
  store: BusinessStore,
  objectType: ObjectType,
  map: Record<string, unknown>,
  { mapName, customObjectId }: { mapName: string; customObjectId?: string },
): FieldWrite[] {
  const writes: FieldWrite[] = [];
  for (const [key, value] of Object.entries(map)) {
    const def = store.fields.get(objectType, key, customObjectId);
    if (!def)
      throw new EmulatorError(400, 'invalid_field', `${mapName}.${key}: no ${objectType} field with key "${key}"`);
    if (def.readOnly || def.relationship?.reverse) {
      throw new EmulatorError(400, 'invalid_field', `${mapName}.${key}: field "${key}" is read-only`);
    }
    const problem = valueProblem(def, value);
    if (problem)
      throw new EmulatorError(400, 'invalid_field', `${mapName}.${key}: field "${key}" (${def.dataType}) ${problem}`);
    writes.push({ def, value: value as FieldValue });
  }
  return writes;
}

/** A field counts as empty when unset, null or the empty string. */
function isEmptyValue(v: FieldValue | undefined): boolean {
  return v === undefined || v === null || v === '';
}

/**
 * Applies validated writes. With preserveExisting, only empty fields are written.
 * A null value removes the field.
 */
export function applyFieldWrites(target: FieldMap, writes: FieldWrite[], preserveExisting: boolean): void {
  for (const { def, value } of writes) {
    if (preserveExisting && !isEmptyValue(target[def.key])) continue;
    if (value === null) delete target[def.key];
    else setOwn(target, def.key, value);
  }
}

/** True when two field maps hold the same keys with the same values. */
export function sameFieldMaps(a: FieldMap, b: FieldMap): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameScalar(a[k], b[k]));
}
