import { setOwn } from '../lib/own-key.js';
import {
  EXTRA_COLUMN,
  fieldColumns,
  FIXED_COLUMNS,
  labelOf,
  type CsvLayout,
  type LabelledField,
} from './csv-layout.js';

/** How the account's contact fields changed since a CSV file's header was bound (the summary's `fieldChanges`). */
export interface FieldChanges {
  /** Bound fields whose label changed: each keeps its column. */
  relabelled: Array<{ key: string; column: string; from: string; to: string }>;
  /** Fields the header has no column for (made since): their values go to `_extra` as `fields.<label>`. */
  added: Array<{ key: string; label: string }>;
  /** Bound fields the account no longer has: their columns stay, empty. */
  removed: Array<{ key: string; column: string }>;
}

/**
 * A CSV file's layout for this run: each field column keeps the field key it was bound to when
 * the header was made, and reads that field's value under the label the export sends now (a
 * relabelled field keeps its column; another field now holding the old label is not mistaken
 * for it). A layout saved before bindings existed is bound now, by the labels its columns hold.
 */
export function bindLayout(
  layout: CsvLayout,
  fields: readonly LabelledField[],
): { layout: CsvLayout; changes: FieldChanges } {
  const now = new Map(fieldColumns(fields).map((c) => [c.key, c.rowKey]));
  const byRowKey = new Map(fieldColumns(fields).map((c) => [c.rowKey, c.key]));
  const rowKeyOf = (column: string) =>
    layout.rowKeys && Object.hasOwn(layout.rowKeys, column) ? layout.rowKeys[column] : labelOf(column);
  const fieldKeys: Record<string, string> = {};
  const rowKeys: Record<string, string> = {};
  const changes: FieldChanges = { relabelled: [], added: [], removed: [] };
  for (const column of layout.columns) {
    if (column === EXTRA_COLUMN || FIXED_COLUMNS.contacts.includes(column)) continue;
    const before = rowKeyOf(column);
    const key =
      layout.fieldKeys && Object.hasOwn(layout.fieldKeys, column) ? layout.fieldKeys[column] : byRowKey.get(before);
    if (key === undefined) continue; // an unbound column of an old layout whose label no field has: read by its label, as before
    setOwn(fieldKeys, column, key);
    const current = now.get(key);
    if (current === undefined) {
      changes.removed.push({ key, column });
      // Nothing is read into it: a later field given the old label is another field.
      setOwn(rowKeys, column, `\u0000removed ${key}`);
      continue;
    }
    if (current !== before) changes.relabelled.push({ key, column, from: before, to: current });
    if (current !== labelOf(column)) setOwn(rowKeys, column, current);
  }
  const bound = new Set(Object.values(fieldKeys));
  const omitted = new Set(layout.omitted);
  for (const f of fieldColumns(fields))
    if (!bound.has(f.key) && !omitted.has(`fields.${f.rowKey}`)) changes.added.push({ key: f.key, label: f.rowKey });
  const { rowKeys: _old, fieldKeys: _was, ...rest } = layout;
  return { layout: { ...rest, ...(Object.keys(rowKeys).length > 0 ? { rowKeys } : {}), fieldKeys }, changes };
}

/** Whether anything changed. */
export function anyChange(changes: FieldChanges): boolean {
  return changes.relabelled.length + changes.added.length + changes.removed.length > 0;
}

/** The stderr note of the changes, naming the file. */
export function changesNote(changes: FieldChanges, path: string): string {
  const parts = [
    ...changes.relabelled.map(
      (c) => `field ${c.key} relabelled "${c.from}" -> "${c.to}": it keeps its column "${c.column}"`,
    ),
    ...changes.added.map(
      (c) =>
        `new field ${c.key} ("${c.label}") has no column in the header: its values go to _extra as "fields.${c.label}" (--full starts the file again with a column for it)`,
    ),
    ...changes.removed.map((c) => `field ${c.key} no longer exists: its column "${c.column}" stays empty`),
  ];
  return `note: the account's contact fields changed since ${path}'s header was made: ${parts.join('; ')}`;
}
