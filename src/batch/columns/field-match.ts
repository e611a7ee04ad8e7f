import type { FieldDefinition } from '../../endpoints/fields.js';
import { columnForm } from '../../input/column-names.js';
import { quoteInput } from '../../input/input-rows.js';
import { shellWord } from '../../lib/shell-word.js';

// How a column name meets the field definitions (src/batch/columns/column-resolver.ts resolves the rest).

/** Field definitions by field parent (`fields`, `companyFields`), then by key. */
export type FieldsByParent = ReadonlyMap<string, ReadonlyMap<string, FieldDefinition>>;

/** Where one column's cells go. */
export type ColumnTarget =
  | { kind: 'key'; key: string; lenient?: boolean }
  | { kind: 'nested'; parent: string; key: string }
  | { kind: 'field'; parent: string; key: string; def: FieldDefinition; by: 'key' | 'label' }
  | { kind: 'pass'; key: string }
  | { kind: 'skip'; why: string; readOnly?: FieldDefinition }
  | { kind: 'unknown'; nearest?: string; why?: string };

/**
 * A field by key, then label: exact first, then in any case and spacing, then as `Label (key)`
 * (the column cnv's export gives each field of a shared label); the parents in order (CONTACT
 * fields before COMPANY fields), so only two fields of one parent are ambiguous. Undefined when
 * no field matches.
 */
export function fieldByName(definitions: FieldsByParent | undefined, parents: readonly string[], name: string): ColumnTarget | undefined {
  const exact = name.normalize('NFC');
  const form = columnForm(name);
  const tiers: Array<[(d: FieldDefinition) => boolean, 'key' | 'label']> = [
    [(d) => fieldSpellings(d).key === exact, 'key'],
    [(d) => fieldSpellings(d).label === exact, 'label'],
    [(d) => fieldSpellings(d).keyForm === form, 'key'],
    [(d) => fieldSpellings(d).labelForm === form, 'label'],
  ];
  for (const parent of parents) {
    const defs = [...(definitions?.get(parent)?.values() ?? [])];
    for (const [matches, by] of tiers) {
      const found = defs.filter(matches);
      if (found.length > 1) return { kind: 'unknown', why: `names ${found.map((d) => `${parent}.${d.key}`).join(' and ')}: say which with --map` };
      if (found.length === 1) return fieldTarget(parent, found[0], by);
    }
  }
  for (const parent of parents) {
    const def = byLabelAndKey([...(definitions?.get(parent)?.values() ?? [])], name);
    if (def) return fieldTarget(parent, def, 'label');
  }
  return undefined;
}

/** `Label (key)`: the field of that key and label (compared in Unicode NFC). */
function byLabelAndKey(defs: readonly FieldDefinition[], name: string): FieldDefinition | undefined {
  const m = /^(.*) \(([^()]+)\)$/.exec(name);
  if (!m) return undefined;
  const label = m[1].normalize('NFC');
  return defs.find((d) => d.key === m[2] && d.label.normalize('NFC') === label);
}

/** A definition that cannot be written: read-only, or the reverse side of a relationship. */
export function isReadOnlyField(def: FieldDefinition): boolean {
  return def.readOnly === true || (def as { relationship?: { reverse?: boolean } }).relationship?.reverse === true;
}

function fieldTarget(parent: string, def: FieldDefinition, by: 'key' | 'label'): ColumnTarget {
  if (isReadOnlyField(def)) return { kind: 'skip', why: `read-only field ${parent}.${def.key}`, readOnly: def };
  return { kind: 'field', parent, key: def.key, def, by };
}

/**
 * A key spelt otherwise (`Contact ID` for cnvContactId) that a field's key or label names too:
 * refused with both readings and the --map that picks each, never a guess. Undefined when no
 * field matches it (it is the key).
 */
export function keyOrField(definitions: FieldsByParent | undefined, parents: readonly string[], name: string, key: string): ColumnTarget | undefined {
  if (!definitions) return undefined;
  const field = fieldByName(definitions, parents, name);
  if (field?.kind !== 'field' && !(field?.kind === 'skip' && field.readOnly)) return undefined;
  const def = field.kind === 'field' ? field.def : field.readOnly!;
  const target = field.kind === 'field' ? `${field.parent}.${field.key}` : `fields.${def.key}`;
  const mapped = (to: string) => `--map ${shellWord(`${name}=${to}`)}`;
  return {
    kind: 'unknown',
    why: `names both ${key} and ${target} (${def.objectType} field labelled ${quoteInput(def.label)}): say which with ${mapped(key)} or ${mapped(target)}`,
  };
}

/**
 * A column of cnv's export: the label it wrote for a field of the first parent (`fields.<label>`
 * where it clashed with an export column, `Label (key)` where fields share it).
 */
export function exportLabelTarget(definitions: FieldsByParent | undefined, parent: string | undefined, name: string): ColumnTarget | undefined {
  const defs = parent ? definitions?.get(parent) : undefined;
  if (!parent || !defs) return undefined;
  const label = (name.startsWith('fields.') ? name.slice('fields.'.length) : name).normalize('NFC');
  const found = [...defs.values()].filter((d) => d.label.normalize('NFC') === label);
  if (found.length > 1) return { kind: 'unknown', why: `the label of ${found.map((d) => `${parent}.${d.key}`).join(' and ')}: say which with --map` };
  if (found.length === 1) return fieldTarget(parent, found[0], 'label');
  const shared = byLabelAndKey([...defs.values()], name);
  return shared && fieldTarget(parent, shared, 'label');
}

/** A field's key and label as column names are compared with them: exact (NFC) and by form. */
interface FieldSpellings {
  key: string;
  label: string;
  keyForm: string;
  labelForm: string;
}

const spellings = new WeakMap<FieldDefinition, FieldSpellings>();

/** A field's spellings, worked out once per definition (each column of a wide header compares with every field). */
function fieldSpellings(def: FieldDefinition): FieldSpellings {
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
      // A suggestion is something a column can be sent as: never a field the service maintains.
      if (isReadOnlyField(def)) continue;
      const { keyForm, labelForm } = fieldSpellings(def);
      if (!candidates.has(keyForm)) candidates.set(keyForm, `${parent}.${def.key}`);
      if (!candidates.has(labelForm)) candidates.set(labelForm, `${parent}.${def.key} (label ${quoteInput(def.label)})`);
    }
  }
  return candidates;
}
