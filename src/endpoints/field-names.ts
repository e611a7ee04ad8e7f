// How a field is named where the export and cnv's files show it: one home for the label, the
// `Label (key)` spelling and the Unicode form labels are compared in, read by every reader
// (an import's columns, a snapshot's rows, --fields-by key) and writer (the CSV's header, the
// emulator's rows).

/** A label as two are compared: Unicode NFC, so `Café` composed and decomposed are one label. */
export function labelForm(label: string): string {
  return label.normalize('NFC');
}

/**
 * `Label (key)`: how the export keys the value of a field whose label an earlier field has (the
 * spec is silent; the emulator's rule, docs/emulator.md), and the CSV column of each field of a
 * shared label.
 */
export function labelAndKey(label: string, key: string): string {
  return `${label} (${key})`;
}

/** The label and key a `Label (key)` name spells; undefined when it is not one. */
export function splitLabelAndKey(name: string): { label: string; key: string } | undefined {
  const m = /^(.*) \(([^()]+)\)$/.exec(name);
  return m ? { label: m[1], key: m[2] } : undefined;
}

/** Whether `name` may be a `Label (key)` of `label`: it extends the label with ` (`. */
export function extendsLabel(name: string, label: string): boolean {
  return name.startsWith(`${label} (`);
}

/**
 * The member each field's value is exported under, in the definitions' order: its label, or
 * `Label (key)` when an earlier field was exported under that label.
 */
export function exportedMemberNames(fields: Iterable<{ key: string; label: string }>): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const f of fields) {
    const name = used.has(f.label) ? labelAndKey(f.label, f.key) : f.label;
    used.add(name);
    names.set(f.key, name);
  }
  return names;
}

/** What a field's column or `_extra` name is prefixed with where its label alone would be mistaken for another member. */
export const FIELD_PREFIX = 'fields.';

/** The label a field's column (or `_extra` name) names: the name, or what follows `fields.`. */
export function labelOf(column: string): string {
  return column.startsWith(FIELD_PREFIX) ? column.slice(FIELD_PREFIX.length) : column;
}
