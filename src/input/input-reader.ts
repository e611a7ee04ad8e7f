import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { openReadStream, stopOnAbort } from '../files/file-streams.js';
import type { Readable } from 'node:stream';
import { csvRows } from './csv-rows.js';
import { InputFileError, jsonRow, type InputFormat, type InputRow } from './input-rows.js';
import { jsonArrayRows } from './json-array-rows.js';
import { checkFileText, decodeText } from './text-decode.js';
import { MAX_WRITE_BYTES, sizeText } from '../limits/limits.js';
import { Utf8Bound, utf8Length } from '../lib/utf8-bound.js';

export { InputFileError, type InputRow } from './input-rows.js';

export interface InputSpec {
  /** A file path, or `-` for stdin. */
  path: string;
  /** Wins over the extension and over sniffing. */
  format?: InputFormat;
  /** CSV field delimiter (default `,`, or a tab for .tsv). */
  delimiter?: string;
  /** CSV: an unnamed column is allowed and named '' (it is then left out by --ignore-column ''). */
  unnamedOk?: boolean;
  /** CSV: called with the header's column names, and its line, once it is read. */
  onHeader?(names: readonly string[], line: number): void;
  /** --encoding: how to read a file that has no byte order mark (default UTF-8, checked). */
  encoding?: string;
  /**
   * false: the text of a regular file is not checked before its rows are read (the caller reads
   * it whole before it uses a row: a file run's check pass, src/batch/file-open.ts); default true.
   */
  checkText?: boolean;
  /** Ends the wait on stdin or a FIFO (for a writer, for data): its reading stops there. A regular file is read to its end. */
  signal?: AbortSignal;
}

export interface OpenedInput {
  /** How the file is named in messages (`stdin` for `-`). */
  name: string;
  format: InputFormat;
  rows: AsyncIterable<InputRow>;
  /** The same rows in batches (read this or `rows`, not both): much cheaper for large files. */
  batches: AsyncIterable<InputRow[]>;
  /** Bytes of a regular file (undefined for stdin or a pipe), for progress. */
  size?: number;
  /** Bytes the rows handed out so far were read from (a chunk at a time), for progress. */
  bytesRead(): number;
}

const EXTENSIONS: Record<string, InputFormat> = {
  csv: 'csv',
  tsv: 'csv',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  json: 'json',
};

/** The format an extension names, if any. */
export function formatFromPath(path: string): InputFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/**
 * Opens an input file (or stdin) as a stream of rows. The format is --input-format, else the
 * extension, else sniffed from the first character: `[` JSON array, `{` NDJSON, otherwise CSV.
 * Text is decoded by src/input/text-decode.ts (BOM, --encoding, UTF-8 checked).
 * A missing or unreadable file is an InputFileError (exit 2) before anything is sent.
 */
export async function openInput(stdin: Readable, spec: InputSpec): Promise<OpenedInput> {
  const isStdin = spec.path === '-';
  const name = isStdin ? 'stdin' : spec.path;
  let size: number | undefined;
  if (!isStdin) {
    // A regular file is checked whole first; a pipe (`<(...)`) can be read only once.
    size = await checkReadable(spec.path);
    if (size !== undefined && spec.checkText !== false) await checkInputText(spec.path, name, spec.encoding);
  }
  const source = isStdin
    ? stopOnAbort(stdin, spec.signal)
    : size !== undefined
      ? createReadStream(spec.path)
      : await openReadStream(spec.path, spec.signal);
  // Counted as the decoder pulls them, which is as the rows of the chunk before are handed out.
  let consumed = 0;
  const counted = async function* (): AsyncGenerator<unknown> {
    for await (const chunk of source) {
      consumed += (chunk as Buffer | string).length;
      yield chunk;
    }
  };
  let input: AsyncIterable<string> = decodeText(counted(), name, spec.encoding);
  let format = spec.format ?? (isStdin ? undefined : formatFromPath(spec.path));
  if (!format) ({ format, input } = await sniff(input));
  const delimiter = spec.delimiter ?? (/\.tsv$/i.test(spec.path) ? '\t' : ',');
  const batches = async function* (): AsyncGenerator<InputRow[]> {
    try {
      const read =
        format === 'csv'
          ? csvRows(input, name, delimiter, {
              delimiterGiven: spec.delimiter !== undefined,
              unnamedOk: spec.unnamedOk,
              onHeader: spec.onHeader,
            })
          : format === 'ndjson'
            ? ndjsonRows(input, name)
            : jsonArrayRows(input, name);
      // Each row's place among the rows: what names a record whatever its line (a JSON array on one line).
      let index = 0;
      for await (const batch of read) {
        for (const row of batch) row.index = index++;
        yield batch;
      }
    } finally {
      if (!isStdin) source.destroy();
    }
  };
  let opened: AsyncGenerator<InputRow[]> | undefined;
  const open = () => {
    if (opened) throw new Error('the input is read once: either rows or batches');
    return (opened = batches());
  };
  const rows = async function* (): AsyncGenerator<InputRow> {
    for await (const batch of open()) yield* batch;
  };
  return {
    name,
    format,
    size,
    bytesRead: () => consumed,
    get rows() {
      return rows();
    },
    get batches() {
      return open();
    },
  };
}

/**
 * Reads a regular file whole for its text (src/input/text-decode.ts: UTF-8 checked unless
 * `encoding` says otherwise); an InputFileError naming the line where it is not.
 */
export async function checkInputText(path: string, name: string, encoding: string | undefined): Promise<void> {
  await checkFileText(path, name, encoding).catch((err: unknown) => {
    throw err instanceof InputFileError ? err : new InputFileError(name, `cannot read: ${(err as Error).message}`);
  });
}

/** The size of a regular file (undefined for a pipe or device); throws when it cannot be read at all. */
async function checkReadable(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new InputFileError(path, 'is a directory, not a file');
    return info.isFile() ? info.size : undefined;
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputFileError(path, code === 'ENOENT' ? 'no such file' : `cannot read: ${(err as Error).message}`);
  }
}

/**
 * NDJSON: one JSON object per line (LF, CRLF or a bare CR end a line); blank lines are
 * skipped; a bad line is an invalid row; a line larger than MAX_WRITE_BYTES (UTF-8) ends the
 * file (InputFileError): it is almost surely not NDJSON, and cnv writes no more in one row.
 * Rows come in batches: the lines of one chunk. Each character is looked at once: a line that
 * goes on over many chunks is kept in pieces and joined once, when its end comes.
 */
async function* ndjsonRows(input: AsyncIterable<string>, file: string): AsyncGenerator<InputRow[]> {
  let line = 0;
  let pieces: string[] = [];
  let size = 0;
  const bytes = new Utf8Bound(MAX_WRITE_BYTES);
  // The last chunk ended with a CR: an LF opening the next one belongs to it.
  let afterCr = false;
  const grow = (chunk: string, from: number, to: number) => {
    size += to - from;
    if (bytes.over(size, () => utf8Length(pieces, chunk.slice(from, to)))) {
      throw new InputFileError(file, `the line is larger than ${sizeText(MAX_WRITE_BYTES)}: not NDJSON?`, line + 1);
    }
  };
  const take = (chunk: string): InputRow[] => {
    const rows: InputRow[] = [];
    let from = afterCr && chunk.charCodeAt(0) === 10 ? 1 : 0;
    afterCr = false;
    for (let i = from; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      grow(chunk, from, i);
      const text = pieces.length > 0 ? pieces.join('') + chunk.slice(from, i) : chunk.slice(from, i);
      pieces = [];
      size = 0;
      bytes.reset();
      line++;
      if (text.trim() !== '') rows.push(jsonRow(line, text));
      if (c === 13) {
        if (i + 1 === chunk.length) afterCr = true;
        else if (chunk.charCodeAt(i + 1) === 10) i++;
      }
      from = i + 1;
    }
    if (from < chunk.length) {
      grow(chunk, from, chunk.length);
      pieces.push(chunk.slice(from));
    }
    return rows;
  };
  try {
    for await (const chunk of input) {
      const rows = take(chunk);
      if (rows.length > 0) yield rows;
    }
    const rest = pieces.join('');
    if (rest.trim() !== '') yield [jsonRow(++line, rest)];
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    throw new InputFileError(file, `cannot read: ${(err as Error).message}`, line || undefined);
  }
}

/** Peeks at the first non-blank character and gives back text that still starts at the beginning. */
async function sniff(text: AsyncIterable<string>): Promise<{ format: InputFormat; input: AsyncIterable<string> }> {
  const iterator = text[Symbol.asyncIterator]();
  const seen: string[] = [];
  let first: string | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    seen.push(next.value);
    first = /[^\s\uFEFF]/.exec(next.value)?.[0];
  }
  const format: InputFormat = first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
  const replay = async function* () {
    yield* seen;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  return { format, input: replay() };
}
