import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import type { CsvError, Info } from 'csv-parse';
import { InputFileError, type InputRow } from './input-rows.js';

// csv-parse cannot resynchronise after these (it reads the rest of the file as one quoted field).
const FATAL_CODES = new Set(['CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED']);

/**
 * Rows of a CSV file with a header row, streamed with csv-parse. Line numbers are physical
 * lines where each record starts (the header is line 1), also for quoted values spanning lines.
 */
export async function* csvRows(input: Readable, file: string, delimiter = ','): AsyncGenerator<InputRow> {
  const { parse } = await import('csv-parse');
  const skipped: Array<{ line: number; error: CsvError }> = [];
  const parser = parse({
    bom: true,
    delimiter,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => {
      if (err) skipped.push({ line: Number(err.lines), error: err });
    },
  });
  // csv-parse counts a CRLF inside a quoted value as two lines; one line ending keeps the numbers right.
  input.on('error', (err) => parser.destroy(err));
  input.pipe(crlfToLf()).pipe(parser);

  let header: string[] | undefined;
  const pending = function* (before: number): Generator<InputRow> {
    while (skipped.length > 0 && skipped[0].line < before) {
      const { line, error } = skipped.shift()!;
      if (FATAL_CODES.has(error.code)) throw new InputFileError(file, describe(error), line);
      yield { line, error: `malformed CSV: ${describe(error)}`, textual: true };
    }
  };
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      const line = info.lines - record.reduce((n, v) => n + countNewlines(v), 0);
      yield* pending(line);
      if (!header) {
        header = checkHeader(record, file);
        continue;
      }
      if (record.length !== header.length) {
        yield { line, error: `has ${record.length} field(s), the header has ${header.length}`, textual: true };
        continue;
      }
      const values: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) values[header[i]] = record[i];
      yield { line, values, textual: true };
    }
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    const e = err as CsvError & NodeJS.ErrnoException;
    throw new InputFileError(file, e.code && e.code.startsWith('CSV_') ? describe(e) : `cannot read: ${e.message}`, typeof e.lines === 'number' ? e.lines : undefined);
  }
  yield* pending(Number.POSITIVE_INFINITY);
  if (!header) throw new InputFileError(file, 'the file is empty: expected a header row naming the columns');
}

function checkHeader(record: string[], file: string): string[] {
  const names = record.map((name) => name.trim());
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new InputFileError(file, `column ${i + 1} of the header has no name`, 1);
    if (seen.has(name)) throw new InputFileError(file, `column "${name}" appears twice in the header`, 1);
    seen.add(name);
  });
  return names;
}

function describe(error: CsvError): string {
  // csv-parse messages end with "at line N"; the caller names the line itself.
  return error.message.replace(/\s*(at|on) line \d+\.?/, '').replace(/ instead of delimiter.*$/, ' instead of a delimiter or line end');
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Turns CRLF into LF, also across chunk boundaries (bytes; safe for UTF-8). */
function crlfToLf(): Transform {
  let heldCr = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      let buf = heldCr ? Buffer.concat([Buffer.from('\r'), chunk]) : chunk;
      heldCr = buf.length > 0 && buf[buf.length - 1] === 0x0d;
      if (heldCr) buf = buf.subarray(0, buf.length - 1);
      done(null, buf.includes(0x0d) ? Buffer.from(buf.toString('latin1').replace(/\r\n/g, '\n'), 'latin1') : buf);
    },
    flush(done) {
      done(null, heldCr ? Buffer.from('\r') : undefined);
    },
  });
}
