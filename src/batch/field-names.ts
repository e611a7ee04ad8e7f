import type { FieldDefinition } from '../api/fields.js';
import { columnForm } from '../io/column-names.js';
import { quoteInput } from '../io/input-rows.js';

/** A field's key and label as column names are compared with them: exact (NFC) and by form. */
interface FieldSpellings {
  key: string;
  label: string;
  keyForm: string;
  labelForm: string;
}

const spellings = new WeakMap<FieldDefinition, FieldSpellings>();

/** A field's spellings, worked out once per definition (each column of a wide header compares with every field). */
export function fieldSpellings(def: FieldDefinition): FieldSpellings {
  let found = spellings.get(def);
  if (!found) {
    found = { key: def.key.normalize('NFC'), label: def.label.normalize('NFC'), keyForm: columnForm(def.key), labelForm: columnForm(def.label) };
    spellings.set(def, found);
  }
  return found;
}

/** What "did you mean" chooses from, by form: the keys given, then each field's key and label. */
export function nearCandidates(keys: readonly string[], definitions: ReadonlyMap<string, ReadonlyMap<string, FieldDefinition>> | undefined): Map<string, string> {
  const candidates = new Map<string, string>();
  for (const key of keys) candidates.set(columnForm(key), key);
  for (const [parent, defs] of definitions ?? []) {
    for (const def of defs.values()) {
      const { keyForm, labelForm } = fieldSpellings(def);
      if (!candidates.has(keyForm)) candidates.set(keyForm, `${parent}.${def.key}`);
      if (!candidates.has(labelForm)) candidates.set(labelForm, `${parent}.${def.key} (label ${quoteInput(def.label)})`);
    }
  }
  return candidates;
}
