import { MAX_COLUMNS } from '../limits/limits.js';
import { CsvFatalError, CsvParser, type CsvRecord } from './csv-parser.js';
import { InputFileError, MAX_JSON_DEPTH, nestsDeeper, quoteInput, type InputRow } from './input-rows.js';

/**
 * Rows of a CSV file with a header row, streamed (src/input/csv-parser.ts). Line numbers are
 * physical lines where each record starts (the header is line 1), also for quoted values
 * spanning lines. A record that cannot be read, or has another number of fields than the
 * header, is an error row; an unclosed or badly closed quote ends the file (InputFileError).
 * Records of only empty cells (what a spreadsheet leaves after deleted rows) are skipped, and
 * so are unnamed columns at the end of the header while they are empty.
 * Rows come in batches (those of one chunk of input), which costs far less than one at a time.
 */
export async function* csvRows(
  input: AsyncIterable<string>,
  file: string,
  delimiter = ',',
  opts: {
    /** --delimiter was given: it wins over an Excel `sep=` first line (which is still taken off). */
    delimiterGiven?: boolean;
    /** An unnamed column is allowed and named '' (--ignore-column '' leaves out a pandas or R row index). */
    unnamedOk?: boolean;
    /** Called with the header's column names, and its line, once it is read. */
    onHeader?(names: readonly string[], line: number): void;
  } = {},
): AsyncGenerator<InputRow[]> {
  const sep = await excelSepLine(input);
  input = sep.input;
  if (sep.delimiter !== undefined && !opts.delimiterGiven) delimiter = sep.delimiter;
  const parser = new CsvParser(delimiter, sep.delimiter === undefined ? 1 : 2);
  let header: Header | undefined;
  let records: CsvRecord[] = [];
  const rowsOf = function* (batch: CsvRecord[]): Generator<InputRow[]> {
    const rows: InputRow[] = [];
    for (const record of batch) {
      const { line, fields } = record;
      if (record.error !== undefined) {
        rows.push({ line, error: `malformed CSV: ${record.error}`, textual: true });
        continue;
      }
      if (!header) {
        header = checkHeader(fields, file, delimiter, opts.unnamedOk, line);
        opts.onHeader?.(header.names, line);
        continue;
      }
      const row = rowOf(header, line, fields);
      if (row) rows.push(row);
    }
    if (rows.length > 0) yield rows;
  };
  try {
    for await (const chunk of input) {
      records = [];
      try {
        parser.push(chunk, records);
      } catch (err) {
        // Rows before the fatal error are still delivered.
        yield* rowsOf(records);
        throw err;
      }
      yield* rowsOf(records);
    }
    records = [];
    try {
      parser.end(records);
    } catch (err) {
      yield* rowsOf(records);
      throw err;
    }
    yield* rowsOf(records);
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    if (err instanceof CsvFatalError) throw new InputFileError(file, err.message, err.line);
    throw new InputFileError(file, `cannot read: ${(err as Error).message}`);
  }
  if (!header) throw new InputFileError(file, 'the file is empty: expected a header row naming the columns');
}

/**
 * Excel's "sep=;" first line (what it writes, and reads, to name a file's delimiter): taken off
 * the text and its delimiter returned, so the header is the line after it.
 */
async function excelSepLine(
  input: AsyncIterable<string>,
): Promise<{ input: AsyncIterable<string>; delimiter?: string }> {
  const iterator = input[Symbol.asyncIterator]();
  let head = '';
  let done = false;
  while (!done && !/[\r\n]/.test(head) && head.length < 64) {
    const next = await iterator.next();
    if (next.done) done = true;
    else head += next.value;
  }
  const m = /^\uFEFF?sep=([^\r\n])(\r\n|\r|\n|$)/i.exec(head);
  if (m) head = head.slice(m[0].length);
  const rest = async function* () {
    if (head !== '') yield head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  return { input: rest(), delimiter: m?.[1] };
}

interface Header {
  names: string[];
  /** Fields a row may have: the named columns, then unnamed ones that must stay empty. */
  width: number;
}

function rowOf(header: Header, line: number, fields: string[]): InputRow | undefined {
  const { names, width } = header;
  let blank = true;
  for (let i = 0; i < fields.length && blank; i++) if (fields[i] !== '' && fields[i].trim() !== '') blank = false;
  if (blank) return undefined;
  if (fields.length !== names.length && (fields.length < names.length || fields.length > width)) {
    return { line, error: `has ${fields.length} field(s), the header has ${width}`, textual: true };
  }
  for (let i = names.length; i < fields.length; i++) {
    if (fields[i].trim() !== '')
      return {
        line,
        error: `column ${i + 1} holds ${quoteInput(fields[i])} but the header does not name it`,
        textual: true,
      };
  }
  // No prototype: a column named __proto__ is a value like any other.
  const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (let i = 0; i < names.length; i++) {
    const cell = fields[i];
    // Cells that parse as JSON are sent as JSON: one nested too deep would overflow on the way out.
    if (cell.length > 2 * MAX_JSON_DEPTH && /^\s*[[{]/.test(cell) && nestsDeeper(cell)) {
      return {
        line,
        error: `column ${quoteInput(names[i])} holds JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
        textual: true,
      };
    }
    values[names[i]] = cell;
  }
  return { line, values, textual: true };
}

function checkHeader(
  record: string[],
  file: string,
  delimiter: string,
  unnamedOk: boolean | undefined,
  line: number,
): Header {
  if (record.length > MAX_COLUMNS) {
    const grouped = (n: number) => n.toLocaleString('en-US');
    throw new InputFileError(
      file,
      `the header has ${grouped(record.length)} columns, more than the ${grouped(MAX_COLUMNS)} cnv reads`,
      line,
      'split the file by columns, or leave out the columns no command takes',
    );
  }
  const all = record.map((name) => name.trim());
  // Unnamed columns at the end (a spreadsheet's stray empty columns) are allowed while empty.
  let named = all.length;
  while (named > 1 && all[named - 1] === '') named--;
  const names = all.slice(0, named);
  const hint = delimiterHint(names, delimiter);
  // No command can use a single column named like "email;name": say what to try at once.
  if (hint) throw new InputFileError(file, `the header is one column, ${quoteInput(names[0], 80)}`, line, hint);
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '' && !unnamedOk) {
      // pandas' to_csv() and R's write.csv() write the row index as a first column without a name.
      const index = i === 0 && names.length > 1;
      throw new InputFileError(
        file,
        `column ${i + 1} of the header has no name${index ? ' (it looks like a pandas or R row index)' : ''}`,
        line,
        index
          ? "leave it out with --ignore-column '' (or write the file with index=False in pandas, row.names=FALSE in R)"
          : "name it in the header, or leave it out with --ignore-column ''",
      );
    }
    if (seen.has(name))
      throw new InputFileError(
        file,
        `column ${name === '' ? 'without a name' : quoteInput(name)} appears twice in the header`,
        line,
      );
    seen.add(name);
  });
  return { names, width: all.length };
}

/** A one-column header holding `;`, a tab, `|` or `,` (not the delimiter) was most likely written with that delimiter. */
function delimiterHint(names: string[], delimiter: string): string | undefined {
  if (names.length !== 1) return undefined;
  for (const [char, flag] of [
    [';', "--delimiter ';'"],
    ['\t', '--delimiter tab'],
    ['|', "--delimiter '|'"],
    [',', "--delimiter ','"],
  ] as const) {
    if (char !== delimiter && names[0].includes(char))
      return `the header has one column holding "${char === '\t' ? '\\t' : char}": try ${flag}`;
  }
  return undefined;
}
