import type { OpenedFile } from '../batch/file-open.js';
import { requireColumn } from '../batch/columns/file-columns.js';
import { InvalidRowError } from '../batch/row-body.js';
import { columnForm } from '../input/column-names.js';
import { quoteInput, type InputRow } from '../input/input-rows.js';
import { isExactNumber } from '../lib/exact-number.js';

/**
 * The value of a key column (--key-column, --id-column) in each row, read from the row as the
 * file holds it (before any column is resolved or sent): the column of that exact name, else
 * the file's one column of that form (any case, spaces, `-` and `_` ignored). A blank cell, or
 * a value that is not text or a number, is an invalid row (`missing_identifier`, never sent).
 */
export function keyColumnReader(flag: string, column: string): (row: InputRow) => string {
  const form = columnForm(column);
  // Whether a column name is of the key column's form, once per name (a JSON file's keys are bounded by the reader).
  const matches = new Map<string, boolean>();
  const nameIn = (values: Record<string, unknown>): string | undefined => {
    if (Object.hasOwn(values, column)) return column;
    let found: string | undefined;
    for (const name in values) {
      let match = matches.get(name);
      if (match === undefined) matches.set(name, (match = columnForm(name) === form));
      if (!match) continue;
      if (found !== undefined) return undefined;
      found = name;
    }
    return found;
  };
  return (row) => {
    const values = row.values ?? {};
    const name = nameIn(values);
    const raw = name === undefined ? undefined : values[name];
    const text =
      typeof raw === 'string'
        ? raw.trim()
        : typeof raw === 'number'
          ? String(raw)
          : isExactNumber(raw)
            ? raw.text
            : undefined;
    if (text === undefined || text === '')
      throw new InvalidRowError(
        `${flag} ${quoteInput(column)}: ${name === undefined ? 'the row has no such column' : 'the cell is blank or not text'}`,
        'missing_identifier',
      );
    return text;
  };
}

/** Refuses an opened CSV file without the key column a flag names (--key-column, --id-column): exit 2, nothing sent. */
export function checkKeyColumn(opened: OpenedFile, key: { flag: string; column: string }): void {
  if (opened.input.format !== 'csv') return;
  const header = opened.columns.entries().map((e) => e.column);
  requireColumn(key.flag, key.column, header, opened.input.name);
}
