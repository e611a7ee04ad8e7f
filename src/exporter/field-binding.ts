import { exportedMemberNames, labelOf } from '../endpoints/field-names.js';
import { MemberKeys } from '../lib/member-keys.js';
import { setOwn } from '../lib/own-key.js';
import { EXTRA_COLUMN, fieldColumns, FIXED_COLUMNS, type CsvLayout, type LabelledField } from './csv-layout.js';

/** How the account's contact fields changed since a CSV file's header was bound (the summary's `fieldChanges`). */
export interface FieldChanges {
  /** Bound fields whose label changed: each keeps its column (CSV; NDJSON has none: its rows name the new label). */
  relabelled: Array<{ key: string; column?: string; from: string; to: string }>;
  /** Fields the header has no column for (made since): their values go to `_extra` as `fields.<label>`; NDJSON: new members. */
  added: Array<{ key: string; label: string }>;
  /** Bound fields the account no longer has: their columns stay, empty (CSV); NDJSON: members no longer sent. */
  removed: Array<{ key: string; column?: string }>;
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

/**
 * The names a contact row's saved identity reads its fields by (src/lib/keyed-hash.ts): each
 * member name the export gives a field (its label, or `Label (key)` for a label an earlier field
 * has), to its key.
 */
export function memberKeysOf(fields: readonly LabelledField[]): MemberKeys {
  return new MemberKeys([...exportedMemberNames(fields)].map(([key, name]) => [name, key] as const));
}

/** Contacts NDJSON: each field's member name in the rows (its label; `Label (key)` for a label an earlier field has), by key. */
export function labelsByKey(fields: readonly LabelledField[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const f of fieldColumns(fields)) setOwn(labels, f.key, f.rowKey);
  return labels;
}

/** Contacts NDJSON: how the fields changed since the labels a state recorded (`labelsByKey` then). */
export function labelChanges(recorded: Record<string, string>, fields: readonly LabelledField[]): FieldChanges {
  const now = labelsByKey(fields);
  const changes: FieldChanges = { relabelled: [], added: [], removed: [] };
  for (const [key, label] of Object.entries(now)) {
    if (!Object.hasOwn(recorded, key)) changes.added.push({ key, label });
    else if (recorded[key] !== label) changes.relabelled.push({ key, from: recorded[key], to: label });
  }
  for (const key of Object.keys(recorded)) if (!Object.hasOwn(now, key)) changes.removed.push({ key });
  return changes;
}

/** Whether anything changed. */
export function anyChange(changes: FieldChanges): boolean {
  return changes.relabelled.length + changes.added.length + changes.removed.length > 0;
}

/** What a file written by label or by key says of a change: CSV (each field keeps its column), NDJSON by label or by key. */
type ChangedOutput = 'csv' | 'labels' | 'keys';

/**
 * The stderr notes of the changes, one line each, naming the export (`where`: the file, and its
 * state key) and the field; `when` says since what (`since FILE's header was made`, `since the
 * last run into FILE`, `while ... read`). Printed with --quiet too (Notices.tell).
 */
export function changeLines(
  changes: FieldChanges,
  output: ChangedOutput,
  when: string,
  stateKey: string | null,
): string[] {
  const head = `note: the account's contact fields changed ${when}${stateKey === null ? '' : ` (export state "${stateKey}")`}: `;
  const hint = output === 'labels' ? ' (--fields-by key names fields by key, stable across renames)' : '';
  const relabelled = (c: FieldChanges['relabelled'][number]) =>
    output === 'csv'
      ? `it keeps its column "${c.column}"`
      : output === 'labels'
        ? `rows from now on name it "${c.to}" in fields${hint}`
        : `rows name it "${c.key}" as before`;
  const toExtra = (label: string) =>
    `("${label}") has no column in the header: its values go to _extra as "fields.${label}"` +
    ' (--full starts the file again with a column for it)';
  const added = (c: FieldChanges['added'][number]) =>
    output === 'csv'
      ? toExtra(c.label)
      : output === 'labels'
        ? `rows name it "${c.label}" in fields`
        : `rows name it "${c.key}"`;
  const removed = (c: FieldChanges['removed'][number]) =>
    output === 'csv' ? `its column "${c.column}" stays empty` : 'rows no longer hold it';
  return [
    ...changes.relabelled.map((c) => `field ${c.key} relabelled "${c.from}" -> "${c.to}": ${relabelled(c)}`),
    ...changes.added.map((c) => `new field ${c.key}${output === 'csv' ? ' ' : ': '}${added(c)}`),
    ...changes.removed.map((c) => `field ${c.key} no longer exists: ${removed(c)}`),
  ].map((line) => head + line);
}
