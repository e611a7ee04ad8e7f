import { UsageError } from '../errors.js';
import { didYouMean } from './suggest.js';
import { textFlag, withBrief } from './flags.js';

/** A list command's columns: every one it knows (CSV), and the few a terminal table shows by default. */
export interface ListColumns {
  all: string[];
  table: string[];
}

/** `--columns a,b,c` of a list command, naming the default and the choices in its help. */
export function columnsFlag(columns: ListColumns) {
  return {
    columns: withBrief(
      textFlag(
        '--columns <list>',
        'columns of the table and of CSV (then without _extra), comma-separated ' +
          `(table default: ${columns.table.join(',')}; any of: ${columns.all.join(', ')})`,
      ),
      'columns of the table and of CSV, comma-separated',
    ),
  };
}

/**
 * The columns in force: --columns for both the table and CSV (then CSV has no `_extra`), else the command's defaults. An
 * unknown name is a usage error naming --columns and the names there are.
 */
export function chosenColumns(
  opts: { columns?: string },
  columns: ListColumns,
): { columns: string[]; tableColumns: string[]; chosen: boolean } {
  if (opts.columns === undefined) return { columns: columns.all, tableColumns: columns.table, chosen: false };
  const names = opts.columns
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) throw new UsageError('--columns: give at least one column name');
  const known = new Map(columns.all.map((c) => [c.toLowerCase(), c]));
  const picked = names.map((name) => {
    const column = known.get(name.toLowerCase());
    if (!column) {
      // A near miss names the one meant; else the names there are.
      const guess = didYouMean(name, columns.all);
      throw new UsageError(
        `--columns: no column "${name}"${guess ? '' : ` (there are: ${columns.all.join(', ')})`}`,
        guess,
      );
    }
    return column;
  });
  return { columns: picked, tableColumns: picked, chosen: true };
}
