import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CsvFatalError, CsvParser, type CsvRecord } from './csv-parser.js';
import { InputFileError, type InputRow } from './input-rows.js';

/**
 * Rows of a CSV file with a header row, streamed (src/io/csv-parser.ts). Line numbers are
 * physical lines where each record starts (the header is line 1), also for quoted values
 * spanning lines. A record that cannot be read, or has another number of fields than the
 * header, is an error row; an unclosed or badly closed quote ends the file (InputFileError).
 * Rows come in batches (those of one chunk of input), which costs far less than one at a time.
 */
export async function* csvRows(input: Readable, file: string, delimiter = ',', anyOf?: readonly string[]): AsyncGenerator<InputRow[]> {
  const parser = new CsvParser(delimiter);
  const decoder = new StringDecoder('utf8');
  let header: string[] | undefined;
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
        header = checkHeader(fields, file, anyOf);
        continue;
      }
      if (fields.length !== header.length) {
        rows.push({ line, error: `has ${fields.length} field(s), the header has ${header.length}`, textual: true });
        continue;
      }
      const values: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) values[header[i]] = fields[i];
      rows.push({ line, values, textual: true });
    }
    if (rows.length > 0) yield rows;
  };
  try {
    for await (const chunk of input) {
      records = [];
      try {
        parser.push(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer), records);
      } catch (err) {
        // Rows before the fatal error are still delivered.
        yield* rowsOf(records);
        throw err;
      }
      yield* rowsOf(records);
    }
    records = [];
    try {
      parser.push(decoder.end(), records);
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

/** `anyOf`: the header must name at least one of these columns (any case), else no row could be sent. */
function checkHeader(record: string[], file: string, anyOf?: readonly string[]): string[] {
  const names = record.map((name) => name.trim());
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new InputFileError(file, `column ${i + 1} of the header has no name`, 1);
    if (seen.has(name)) throw new InputFileError(file, `column "${name}" appears twice in the header`, 1);
    seen.add(name);
  });
  if (anyOf && !names.some((name) => anyOf.some((wanted) => wanted.toLowerCase() === name.toLowerCase()))) {
    throw new InputFileError(file, `the header names none of the columns ${anyOf.join(', ')} that identify a row (it has: ${names.join(', ')})`, 1);
  }
  return names;
}
