import { UsageError } from '../errors.js';
import { cellText } from '../output/format.js';
import { stringifyJson } from '../lib/exact-number.js';
import { setOwn } from '../lib/own-key.js';
import { CONTACT_FIELDS, EXPORT_MEMBERS, type ExportKind } from '../endpoints/exports.js';
import { exportedMemberNames, FIELD_PREFIX, labelAndKey, labelForm, labelOf } from '../endpoints/field-names.js';
import { didYouMean } from '../lib/did-you-mean.js';

/** The columns of each export's rows, in the spec's order (contact fields come after): its members. */
export const FIXED_COLUMNS: Record<ExportKind, readonly string[]> = {
  contacts: EXPORT_MEMBERS.contacts.map((m) => m.name),
  'custom-events': EXPORT_MEMBERS['custom-events'].map((m) => m.name),
  'email-events': EXPORT_MEMBERS['email-events'].map((m) => m.name),
};

/** Last column of every export: the members that have no column of their own, as one JSON object. */
export const EXTRA_COLUMN = '_extra';

/**
 * A CSV header, kept in the export state so every run appending to a file writes the same one.
 * `omitted` names what --columns left out on purpose (in `_extra` naming: `key` or
 * `fields.<label>`); anything else without a column lands in `_extra`, never dropped.
 */
export interface CsvLayout {
  columns: string[];
  omitted: string[];
  /**
   * Contacts: the member of a row's `fields` that a column holds, where it is not the column's
   * label (fields sharing a label: column `Score (score)` holds the member `Score`). Absent when
   * every column is its label.
   */
  rowKeys?: Record<string, string>;
  /**
   * Contacts: the field key each field column holds, bound when the file's header was made, so a
   * field relabelled since keeps its column (src/exporter/field-binding.ts). Absent in a layout
   * saved before (bound from the labels at its next run).
   */
  fieldKeys?: Record<string, string>;
}

/** A CSV file's layout as its export state keeps it: the header, and how its cells were written (a file keeps one way). */
export interface FileLayout extends CsvLayout {
  /** --null-as ('' without it). */
  nullAs: string;
  excelSafe: boolean;
}

/** A contact field as its export column is made from it (GET /v2/fields, in its order). */
export interface LabelledField {
  key: string;
  label: string;
}

/** How a CSV names its field columns: by label (the default), or by key (`--fields-by key`: stable across renames). */
export type FieldsBy = 'label' | 'key';

/** The column of a contact field's label (or key): itself, unless it would be mistaken for another column. */
function labelColumn(label: string): string {
  const clash = FIXED_COLUMNS.contacts.includes(label) || label === EXTRA_COLUMN || label.startsWith(FIELD_PREFIX);
  return clash ? FIELD_PREFIX + label : label;
}

/**
 * The contact fields' columns, and the row member each holds. The export keys a row's fields by
 * label; a label used by an earlier field is sent as `Label (key)` (the spec is silent; the
 * emulator's rule, docs/emulator.md). A label that two fields share (the same text, or the same
 * in Unicode NFC: `Café` composed and decomposed) gets the column `Label (key)` for each of
 * them, so every field has a column of its own that an import resolves to it (field-match.ts).
 */
export function fieldColumns(fields: readonly LabelledField[]): Array<{ column: string; rowKey: string; key: string }> {
  const rowKeys = exportedMemberNames(fields);
  const shared = new Map<string, number>();
  for (const f of fields) shared.set(labelForm(f.label), (shared.get(labelForm(f.label)) ?? 0) + 1);
  const out: Array<{ column: string; rowKey: string; key: string }> = [];
  for (const f of fields) {
    const rowKey = rowKeys.get(f.key)!;
    const column = shared.get(labelForm(f.label))! > 1 ? labelAndKey(f.label, f.key) : labelColumn(f.label);
    if (!out.some((o) => o.column === column)) out.push({ column, rowKey, key: f.key });
  }
  return out;
}

/** Every column a kind offers: fixed ones, then (contacts) one per field; and the row members that differ from their column's label. */
function availableColumns(
  kind: ExportKind,
  fields: readonly LabelledField[],
  by: FieldsBy,
): { columns: string[]; rowKeys: Record<string, string>; keys: Record<string, string> } {
  const labelled = kind === 'contacts' ? fieldColumns(fields) : [];
  // By key: a field's column is its key (keys are unique: no two share one), its member still the label the row sends.
  const own = by === 'key' ? labelled.map((c) => ({ ...c, column: labelColumn(c.key) })) : labelled;
  const rowKeys: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const { column, rowKey, key } of own) {
    if (rowKey !== labelOf(column)) setOwn(rowKeys, column, rowKey);
    setOwn(keys, column, key);
  }
  return { columns: [...FIXED_COLUMNS[kind], ...own.map((o) => o.column)], rowKeys, keys };
}

/** The header: every available column, or those --columns chose (validated), then `_extra`. */
export function csvLayout(
  kind: ExportKind,
  fields: readonly LabelledField[],
  chosen?: readonly string[],
  by: FieldsBy = 'label',
): CsvLayout {
  const { columns: available, rowKeys: allKeys, keys } = availableColumns(kind, fields, by);
  const keyed = (columns: readonly string[]) => {
    const rowKeys = Object.fromEntries(Object.entries(allKeys).filter(([c]) => columns.includes(c)));
    const fieldKeys = Object.fromEntries(Object.entries(keys).filter(([c]) => columns.includes(c)));
    return { ...(Object.keys(rowKeys).length > 0 ? { rowKeys } : {}), ...(kind === 'contacts' ? { fieldKeys } : {}) };
  };
  if (!chosen) return { columns: [...available, EXTRA_COLUMN], omitted: [], ...keyed(available) };
  const picked: string[] = [];
  for (const name of chosen) {
    if (name === EXTRA_COLUMN) continue;
    const bare = labelOf(name);
    const column = available.includes(name)
      ? name
      : available.find((c) => c === labelColumn(name) || c === labelColumn(bare));
    if (!column) {
      throw new UsageError(
        `--columns: no column "${name}" in a ${kind} export`,
        didYouMean(name, available) ?? `columns: ${available.join(', ')}`,
      );
    }
    if (!picked.includes(column)) picked.push(column);
  }
  const omitted = available.filter((c) => !picked.includes(c)).map((c) => extraName(kind, c, allKeys));
  return { columns: [...picked, EXTRA_COLUMN], omitted, ...keyed(picked) };
}

/** How a column's value is named inside `_extra`: the row member, or `fields.<member>` (the label, as the row keys it). */
function extraName(kind: ExportKind, column: string, rowKeys: Record<string, string> = {}): string {
  if (kind !== 'contacts' || FIXED_COLUMNS.contacts.includes(column)) return column;
  // Own members only: a column `constructor` or `toString` is a label, not Object.prototype's.
  return FIELD_PREFIX + (Object.hasOwn(rowKeys, column) ? rowKeys[column] : labelOf(column));
}

/**
 * Turns rows into cells for a layout. Scalars as the API sent them (booleans `true`/`false`,
 * dates untouched, null empty or `nullAs` (--null-as)), objects and arrays (`data`, `topicIds`) as JSON.
 * With `nullAs`, `texts` (when given) collects the indexes of text values equal to it, so the
 * writer quotes them and a reader can tell them from null. A number JSON.parse may have
 * rounded (one whose shortest spelling has 16 digits or more, or out of range) makes the row's
 * text, when given, be parsed again by `exact`, so its cell holds the digits the API sent; found
 * by the value, not by scanning every row's text (which costs as much as parsing it).
 */
export function rowCells(
  kind: ExportKind,
  layout: CsvLayout,
  {
    nullAs = '',
    texts,
    exact,
    count,
  }: {
    nullAs?: string;
    texts?: Set<number>;
    exact?: (text: string) => Record<string, unknown>;
    /** Counts what went to `_extra`. */
    count?: ExtraCount;
  } = {},
): (row: Record<string, unknown>, text?: string) => string[] {
  let inexact = false;
  let extraOfRow: Record<string, unknown> | undefined;
  const text = (v: unknown) => {
    const t = cellText(v);
    if (
      typeof v === 'number' &&
      (!Number.isFinite(v) || (Number.isInteger(v) ? !Number.isSafeInteger(v) : t.length > 16))
    )
      inexact = true;
    return t;
  };
  const cell =
    nullAs === ''
      ? text
      : (v: unknown, at: number) => {
          if (v === null) return nullAs;
          if (v === nullAs) texts?.add(at);
          return text(v);
        };
  const top = new Map<string, number>();
  const labels = new Map<string, number>();
  layout.columns.forEach((column, i) => {
    if (column === EXTRA_COLUMN) return;
    const name = extraName(kind, column, layout.rowKeys);
    if (kind === 'contacts' && name.startsWith(FIELD_PREFIX) && !FIXED_COLUMNS.contacts.includes(column))
      labels.set(name.slice(FIELD_PREFIX.length), i);
    else top.set(name, i);
  });
  const omitted = new Set(layout.omitted);
  const extraAt = layout.columns.indexOf(EXTRA_COLUMN);
  const format = (row: Record<string, unknown>) => {
    texts?.clear();
    const cells: string[] = new Array(layout.columns.length).fill('');
    const extra: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (kind === 'contacts' && key === CONTACT_FIELDS && isPlainObject(value)) {
        for (const [label, v] of Object.entries(value)) {
          const at = labels.get(label);
          if (at !== undefined) cells[at] = cell(v, at);
          else if (!omitted.has(FIELD_PREFIX + label)) extra[FIELD_PREFIX + label] = v;
        }
        continue;
      }
      const at = top.get(key);
      if (at !== undefined) cells[at] = cell(value, at);
      else if (!omitted.has(key)) setOwn(extra, key, value);
    }
    if (extraAt >= 0 && Object.keys(extra).length > 0) {
      cells[extraAt] = stringifyJson(extra);
      extraOfRow = extra;
    }
    return cells;
  };
  return (row, rowText) => {
    inexact = false;
    extraOfRow = undefined;
    let cells = format(row);
    if (inexact && rowText !== undefined && exact) {
      extraOfRow = undefined;
      cells = format(exact(rowText));
    }
    if (count && extraOfRow) countExtra(count, extraOfRow);
    return cells;
  };
}

/** What went to `_extra` in the rows formatted so far: the values no column of the header holds (the summary's `extra`). */
export interface ExtraCount {
  values: number;
  rows: number;
  /** Their names, as `_extra` keys them (`fields.<label>`, a member's name). */
  members: Set<string>;
}

function countExtra(count: ExtraCount, extra: Record<string, unknown>): void {
  count.rows++;
  for (const name of Object.keys(extra)) {
    count.values++;
    // A few names at most (a new field, an unknown member): a server inventing one per row is not listed whole.
    if (count.members.size < MAX_EXTRA_NAMES) count.members.add(name);
  }
}

const MAX_EXTRA_NAMES = 20;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
