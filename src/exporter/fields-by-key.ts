import { labelAndKey } from '../endpoints/field-names.js';
import { setOwn } from '../lib/own-key.js';

// `export contacts --fields-by key`: the API's export keys a row's `fields` by field label; a
// script that joins rows with `contacts get` (keyed by field key) wants the keys. Each member
// is renamed by the CONTACT field definitions read when the run starts.

/** How the members of an exported row's `fields` become field keys. */
export interface FieldKeys {
  /** A member name (a label one field has, or the `Label (key)` form a shared label may take) -> its field key. */
  keyOf: ReadonlyMap<string, string>;
  /** Labels several fields share: a member named so cannot be told apart (label -> the keys). */
  shared: ReadonlyMap<string, readonly string[]>;
}

/** The key of each label from the definitions; a label two fields share names neither. */
export function fieldKeys(defs: ReadonlyArray<{ key: string; label: string }>): FieldKeys {
  const byLabel = new Map<string, string[]>();
  for (const def of defs) byLabel.set(def.label, [...(byLabel.get(def.label) ?? []), def.key]);
  const keyOf = new Map<string, string>();
  const shared = new Map<string, string[]>();
  for (const [label, keys] of byLabel) {
    if (keys.length === 1) keyOf.set(label, keys[0]);
    else shared.set(label, keys);
  }
  // A server may tell shared labels apart as `Label (key)` (the emulator does): that names one.
  for (const [label, keys] of shared)
    for (const key of keys) if (!keyOf.has(labelAndKey(label, key))) keyOf.set(labelAndKey(label, key), key);
  return { keyOf, shared };
}

/**
 * The row with `fields` keyed by field key, members in their order. A member no definition
 * names alone (a label two fields share, or a field made after the run started) is never
 * dropped nor guessed: it goes, under its label, to `unresolvedFields` beside `fields`.
 */
export function rowWithFieldKeys(row: Record<string, unknown>, keys: FieldKeys): Record<string, unknown> {
  const fields = row.fields;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return row;
  const byKey: Record<string, unknown> = {};
  const unresolved: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const key = keys.keyOf.get(name);
    // Own members only, set as such: a key or label `constructor`, `toString` or `__proto__` is data.
    if (key !== undefined && !Object.hasOwn(byKey, key)) setOwn(byKey, key, value);
    else setOwn(unresolved, name, value);
  }
  const out: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(row)) {
    setOwn(out, member, member === 'fields' ? byKey : value);
    if (member === 'fields' && Object.keys(unresolved).length > 0) out.unresolvedFields = unresolved;
  }
  return out;
}
