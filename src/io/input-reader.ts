import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { csvRows } from './csv-rows.js';
import { InputFileError, objectRow, type InputFormat, type InputRow } from './input-rows.js';
import { jsonArrayRows } from './json-array-rows.js';

export { INPUT_FORMATS, InputFileError, type InputFormat, type InputRow } from './input-rows.js';

export interface InputSpec {
  /** A file path, or `-` for stdin. */
  path: string;
  /** Wins over the extension and over sniffing. */
  format?: InputFormat;
  /** CSV field delimiter (default `,`, or a tab for .tsv). */
  delimiter?: string;
}

export interface OpenedInput {
  /** How the file is named in messages (`stdin` for `-`). */
  name: string;
  format: InputFormat;
  rows: AsyncIterable<InputRow>;
}

const EXTENSIONS: Record<string, InputFormat> = { csv: 'csv', tsv: 'csv', ndjson: 'ndjson', jsonl: 'ndjson', json: 'json' };

/** The format an extension names, if any. */
export function formatFromPath(path: string): InputFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/**
 * Opens an input file (or stdin) as a stream of rows. The format is --input-format, else the
 * extension, else sniffed from the first character: `[` JSON array, `{` NDJSON, otherwise CSV.
 * A missing or unreadable file is an InputFileError (exit 2) before anything is sent.
 */
export async function openInput(stdin: Readable, spec: InputSpec): Promise<OpenedInput> {
  const isStdin = spec.path === '-';
  const name = isStdin ? 'stdin' : spec.path;
  if (!isStdin) await checkReadable(spec.path);
  const source = isStdin ? stdin : createReadStream(spec.path);
  let input: Readable = source;
  let format = spec.format ?? (isStdin ? undefined : formatFromPath(spec.path));
  if (!format) ({ format, input } = await sniff(source));
  const delimiter = spec.delimiter ?? (/\.tsv$/i.test(spec.path) ? '\t' : ',');
  const rows = async function* (): AsyncGenerator<InputRow> {
    try {
      if (format === 'csv') yield* csvRows(input, name, delimiter);
      else if (format === 'ndjson') yield* ndjsonRows(input, name);
      else yield* jsonArrayRows(input, name);
    } finally {
      if (!isStdin) source.destroy();
    }
  };
  return { name, format, rows: rows() };
}

async function checkReadable(path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new InputFileError(path, 'is a directory, not a file');
  } catch (err) {
    if (err instanceof InputFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputFileError(path, code === 'ENOENT' ? 'no such file' : `cannot read: ${(err as Error).message}`);
  }
}

/** NDJSON: one JSON object per line; blank lines are skipped; a bad line is an invalid row. */
async function* ndjsonRows(input: Readable, file: string): AsyncGenerator<InputRow> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (let text of lines) {
      line++;
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield { line, error: `not valid JSON: ${(err as Error).message}` };
        continue;
      }
      yield objectRow(line, value);
    }
  } catch (err) {
    throw new InputFileError(file, `cannot read: ${(err as Error).message}`, line || undefined);
  } finally {
    lines.close();
  }
}

/** Peeks at the first non-blank character and gives back a stream that still starts at the beginning. */
async function sniff(source: Readable): Promise<{ format: InputFormat; input: Readable }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let first: string | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    const buf = Buffer.isBuffer(next.value) ? next.value : Buffer.from(String(next.value));
    seen.push(buf);
    first = /[^\s\uFEFF]/.exec(Buffer.concat(seen).toString('utf8'))?.[0];
  }
  const format: InputFormat = first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
  const replay = async function* () {
    yield* seen;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
  };
  return { format, input: Readable.from(replay(), { objectMode: false }) };
}
