import { EmulatorError, invalidRequest } from './error-answer.js';
import { DATA_TYPES, type DataType, type StoredField, type ObjectType } from './model.js';
import type { BusinessStore } from './store.js';

/** Letters (Unicode included), digits and underscores: the spec's key charset. */
export const FIELD_KEY_RE = /^[\p{L}\p{N}_]+$/u;

/**
 * The key derived from a label when Create field gets none: the label's runs of letters and
 * digits in camelCase ("Lifetime value (EUR)" -> "lifetimeValueEur"). Empty when the label
 * holds no letter or digit.
 */
export function deriveFieldKey(label: string): string {
  const words = label.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  return words
    .map((w, i) => {
      const lower = w.toLowerCase();
      return i === 0 ? lower : lower.charAt(0).toUpperCase() + lower.slice(1);
    })
    .join('');
}

/** A data type, case-insensitive; 400 invalid_request otherwise. */
export function readDataType(v: unknown): DataType {
  const found = typeof v === 'string' ? DATA_TYPES.find((t) => t === v.trim().toUpperCase()) : undefined;
  if (!found) throw invalidRequest(`dataType must be one of ${DATA_TYPES.join(', ')}`);
  return found;
}

/** An object type among `allowed`, case-insensitive; 400 invalid_object_type otherwise. */
export function readObjectType(v: unknown, allowed: readonly ObjectType[], name = 'objectType'): ObjectType {
  const found = typeof v === 'string' ? allowed.find((t) => t === v.trim().toUpperCase()) : undefined;
  if (!found) throw new EmulatorError(400, 'invalid_object_type', `${name} must be one of ${allowed.join(', ')}`);
  return found;
}

/** 400 invalid_field when the key is taken anywhere in the account (keys are account-wide). */
export function assertKeyFree(store: BusinessStore, key: string): void {
  if (store.fields.hasKey(key))
    throw new EmulatorError(400, 'invalid_field', `A field with key "${key}" already exists`);
}

/** A required non-blank string, trimmed; 400 invalid_request otherwise. */
export function requiredTrimmed(body: Record<string, unknown>, key: string, prefix = ''): string {
  const v = body[key];
  if (typeof v !== 'string' || v.trim() === '')
    throw invalidRequest(`${prefix}${key} is required (a non-empty string)`);
  return v.trim();
}

/** The list shape of a field definition (GET /v2/fields). */
export function fieldView(def: StoredField): Record<string, unknown> {
  return {
    key: def.key,
    label: def.label,
    objectType: def.objectType,
    dataType: def.dataType,
    // Reverse relationship fields are maintained by the service, so they cannot be written.
    readOnly: def.readOnly || def.relationship?.reverse === true,
    ...(def.customObjectId ? { customObjectId: def.customObjectId } : {}),
    ...(def.relationship
      ? {
          relationship: {
            objectType: def.relationship.targetObjectType,
            ...(def.relationship.targetCustomObjectId ? { customObjectId: def.relationship.targetCustomObjectId } : {}),
            pairedKey: def.relationship.pairedKey,
            reverse: def.relationship.reverse,
          },
        }
      : {}),
  };
}
