import { labelForm, labelOf, splitLabelAndKey } from '../../endpoints/field-names.js';
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
  | { kind: 'unknown'; nearest?: string; why?: string; ambiguous?: boolean };

/**
 * A field by key, then label: exact first, then in any case and spacing, then as `Label (key)`
 * (the column cnv's export gives each field of a shared label). Two fields of one parent are
 * ambiguous, and so is a name that fields of two parents answer (a CONTACT field and a COMPANY
 * field, by key or label, in whichever tier): a bare column never picks a parent by their order,
 * or a relabel in the account would move it silently. Undefined when no field matches.
 */
export function fieldByName(
  definitions: FieldsByParent | undefined,
  parents: readonly string[],
  name: string,
): ColumnTarget | undefined {
  const found: ColumnTarget[] = [];
  for (const parent of parents) {
    const target = inParent([...(definitions?.get(parent)?.values() ?? [])], parent, name);
    if (target?.kind === 'unknown') return target;
    if (target) found.push(target);
  }
  if (found.length > 1) return ambiguous(name, found.map(reading));
  if (found.length === 1) return found[0];
  for (const parent of parents) {
    const def = byLabelAndKey([...(definitions?.get(parent)?.values() ?? [])], name);
    if (def) return fieldTarget(parent, def, 'label');
  }
  return undefined;
}

/** The field of one parent a name matches, in the first tier that matches; unknown when two do. */
function inParent(defs: readonly FieldDefinition[], parent: string, name: string): ColumnTarget | undefined {
  const exact = labelForm(name);
  const form = columnForm(name);
  const tiers: Array<[(d: FieldDefinition) => boolean, 'key' | 'label']> = [
    [(d) => fieldSpellings(d).key === exact, 'key'],
    [(d) => fieldSpellings(d).label === exact, 'label'],
    [(d) => fieldSpellings(d).keyForm === form, 'key'],
    [(d) => fieldSpellings(d).labelForm === form, 'label'],
  ];
  for (const [matches, by] of tiers) {
    const found = defs.filter(matches);
    if (found.length > 1)
      return {
        kind: 'unknown',
        ambiguous: true,
        why: `names ${found.map((d) => `${parent}.${d.key}`).join(' and ')}: say which with --map`,
      };
    if (found.length === 1) return fieldTarget(parent, found[0], by);
  }
  return undefined;
}

/** One reading of an ambiguous column: the target a --map names, and how to show it. */
interface Reading {
  /** `cnvContactId`, `fields.KEY`, `companyFields.KEY`. */
  target: string;
  /** `fields.KEY (CONTACT field labelled "L")`. */
  shown: string;
  /** A read-only field: a --map cannot send to it. */
  readOnly?: boolean;
}

/** A field target (writable, or read-only) as one reading of an ambiguous column. */
function reading(t: ColumnTarget): Reading {
  const def = t.kind === 'field' ? t.def : (t as Extract<ColumnTarget, { kind: 'skip' }>).readOnly!;
  const target = t.kind === 'field' ? `${t.parent}.${t.key}` : `${parentOf(def)}.${def.key}`;
  return {
    target,
    shown: `${target} (${def.readOnly ? 'read-only ' : ''}${def.objectType} field labelled ${quoteInput(def.label)})`,
    readOnly: t.kind !== 'field',
  };
}

const parentOf = (def: FieldDefinition) => (def.objectType === 'COMPANY' ? 'companyFields' : 'fields');

/** A column that names several things: refused with each reading and the --map that picks it. */
function ambiguous(name: string, readings: readonly Reading[]): ColumnTarget {
  const mapped = (to: string) => `--map ${shellWord(`${name}=${to}`)}`;
  const shown = readings.map((r) => r.shown);
  const both =
    readings.length === 2
      ? `both ${shown.join(' and ')}`
      : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  const maps = readings.filter((r) => !r.readOnly).map((r) => mapped(r.target));
  const leave = readings.some((r) => r.readOnly) ? ` (${mapped('-')} leaves it out)` : '';
  return { kind: 'unknown', ambiguous: true, why: `names ${both}: say which with ${maps.join(' or ')}${leave}` };
}

/** `Label (key)`: the field of that key and label (compared in Unicode NFC). */
function byLabelAndKey(defs: readonly FieldDefinition[], name: string): FieldDefinition | undefined {
  const named = splitLabelAndKey(name);
  if (!named) return undefined;
  const label = labelForm(named.label);
  return defs.find((d) => d.key === named.key && labelForm(d.label) === label);
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
export function keyOrField(
  definitions: FieldsByParent | undefined,
  parents: readonly string[],
  name: string,
  key: string,
): ColumnTarget | undefined {
  if (!definitions) return undefined;
  const readings: Reading[] = [];
  const field = fieldByName(definitions, parents, name);
  if (field?.kind === 'field' || (field?.kind === 'skip' && field.readOnly)) readings.push(reading(field));
  else if (field?.kind === 'unknown' && field.ambiguous) {
    // Fields of two parents as well: every reading, the key first.
    for (const parent of parents) {
      const own = inParent([...(definitions.get(parent)?.values() ?? [])], parent, name);
      if (own?.kind === 'field' || (own?.kind === 'skip' && own.readOnly)) readings.push(reading(own));
    }
    if (readings.length === 0) return field;
  } else return undefined;
  return ambiguous(name, [{ target: key, shown: key }, ...readings]);
}

/**
 * A column of cnv's export: the label it wrote for a field of the first parent (`fields.<label>`
 * where it clashed with an export column, `Label (key)` where fields share it).
 */
export function exportLabelTarget(
  definitions: FieldsByParent | undefined,
  parent: string | undefined,
  name: string,
): ColumnTarget | undefined {
  const defs = parent ? definitions?.get(parent) : undefined;
  if (!parent || !defs) return undefined;
  const label = labelForm(labelOf(name));
  const found = [...defs.values()].filter((d) => labelForm(d.label) === label);
  if (found.length > 1)
    return {
      kind: 'unknown',
      why: `the label of ${found.map((d) => `${parent}.${d.key}`).join(' and ')}: say which with --map`,
    };
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
    found = {
      key: labelForm(def.key),
      label: labelForm(def.label),
      keyForm: columnForm(def.key),
      labelForm: columnForm(def.label),
    };
    spellings.set(def, found);
  }
  return found;
}

/** What "did you mean" chooses from, by form: the keys given, then each field's key and label. */
export function nearCandidates(
  keys: readonly string[],
  definitions: ReadonlyMap<string, ReadonlyMap<string, FieldDefinition>> | undefined,
): Map<string, string> {
  const candidates = new Map<string, string>();
  for (const key of keys) candidates.set(columnForm(key), key);
  for (const [parent, defs] of definitions ?? []) {
    for (const def of defs.values()) {
      // A suggestion is something a column can be sent as: never a field the service maintains.
      if (isReadOnlyField(def)) continue;
      const { keyForm, labelForm } = fieldSpellings(def);
      if (!candidates.has(keyForm)) candidates.set(keyForm, `${parent}.${def.key}`);
      if (!candidates.has(labelForm))
        candidates.set(labelForm, `${parent}.${def.key} (label ${quoteInput(def.label)})`);
    }
  }
  return candidates;
}
