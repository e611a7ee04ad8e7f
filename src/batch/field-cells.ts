import { openInput, type InputRow, type OpenedInput } from '../input/input-reader.js';
import type { Notices } from '../output/notices.js';
import type { NumberConvention } from '../input/number-convention.js';
import type { ColumnResolver } from './columns/column-resolver.js';
import type { BatchDeps } from './batch-deps.js';
import type { FileColumns } from './columns/file-columns.js';
import { InvalidRowError } from './row-body.js';
import type { BatchRunOptions } from './batch-run-options.js';

/** How a file run reads the cells of fields (the modes whose cells are typed by field definitions). */
export interface FieldCells {
  numbers: NumberConvention;
  blanks: BlankCells;
  /** Whether the file may hold NUMBER cells that are read, so a scan is worth a second reading of it. */
  scanWanted(input: OpenedInput, columns: FileColumns): boolean;
  /** One row read as the run reads it, for its NUMBER cells (nothing counted, nothing kept; an InvalidRowError is ignored). */
  scan(row: InputRow, columns: ColumnResolver): void;
}

const MAX_NAMED = 20;

/**
 * Blank cells of field columns. A blank cell is left out of the request, so the field keeps the
 * value it has (the spec shows no way to clear a field from a file's empty cell): counted, and
 * said once when the run ends, on stderr and in --summary-json.
 */
export class BlankCells {
  private cells = 0;
  private readonly columns = new Set<string>();

  /** `clear`: how this command clears a field instead. */
  constructor(private readonly clear: string) {}

  see(column: string): void {
    this.cells++;
    if (this.columns.size < MAX_NAMED) this.columns.add(column);
  }

  /** The note, once, at the end of the run. */
  show(notices: Notices): void {
    if (this.cells === 0) return;
    const names = [...this.columns].map((c) => JSON.stringify(c)).join(', ');
    const more = this.columns.size === MAX_NAMED ? ' and more' : '';
    const what = this.cells === 1 ? '1 blank cell' : `${this.cells} blank cells`;
    const why = `a blank cell leaves the field as it is on the server; ${this.clear}`;
    notices.info(`note: ${what} of field columns (${names}${more}) not sent: ${why}`);
  }

  /** --summary-json's `blankCells`. */
  summary(): { cells: number; columns: string[] } {
    return { cells: this.cells, columns: [...this.columns] };
  }
}

/**
 * Before the first request, the file's number convention (src/input/number-convention.ts): unless a
 * flag gave it, a regular file is read once more, through the same code as the run, for the
 * evidence of its NUMBER cells; a file that shows both conventions, or holds a cell of two
 * readings and nothing to tell which, is refused here (exit 2) with nothing sent. stdin and
 * FIFOs can be read only once: there the cells decide as they come. True when the file was read
 * whole (its decoding checked its text: src/batch/file-open.ts `checkFile` needs no other read).
 */
export async function settleNumbers(
  deps: BatchDeps,
  cells: FieldCells,
  {
    input,
    columns,
    path,
    options,
  }: { input: OpenedInput; columns: FileColumns; path: string; options: BatchRunOptions },
): Promise<boolean> {
  const { numbers } = cells;
  if (numbers.settled) return false;
  if (input.size === undefined) {
    numbers.streaming();
    return false;
  }
  if (!cells.scanWanted(input, columns)) return false;
  const again = await openInput(deps.io.stdin, {
    path,
    format: input.format,
    delimiter: options.delimiter,
    encoding: options.encoding,
    unnamedOk: options.columns.ignoreColumn?.includes(''),
    // This read is the check of the file's text: it decodes every byte.
    checkText: false,
    signal: deps.signal,
  });
  numbers.startScan();
  for await (const batch of again.batches) {
    if (deps.signal.aborted) throw deps.signal.reason;
    for (const row of batch) {
      if (row.error !== undefined) continue;
      numbers.at(row.line);
      try {
        cells.scan(row, columns.resolver);
      } catch (err) {
        if (!(err instanceof InvalidRowError)) throw err;
      }
    }
  }
  const note = numbers.endScan(input.name);
  if (note) deps.notices.info(note);
  return true;
}

/**
 * The scan's work for a CSV row whose other cells need no reading: its NUMBER fields' cells, read
 * by the convention (its evidence, its cells of two readings), as the run's preparing reads them.
 */
export function scanNumberCells(row: InputRow, resolver: ColumnResolver, numbers: NumberConvention): void {
  if (!row.textual || !row.values) return;
  for (const column in row.values) {
    const raw = String(row.values[column]);
    if (raw.trim() === '') continue;
    const { target } = resolver.resolve(column);
    if (target.kind === 'field' && target.def.dataType.toUpperCase() === 'NUMBER') numbers.read(raw);
  }
}

/** Whether a column resolves to a NUMBER field. */
export function numberColumn(columns: FileColumns): boolean {
  return columns.entries().some((entry) => {
    const { target } = columns.resolver.resolve(entry.column);
    return target.kind === 'field' && target.def.dataType.toUpperCase() === 'NUMBER';
  });
}
