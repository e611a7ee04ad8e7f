import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { UsageError } from '../errors.js';
import { csvCell } from '../io/csv-line.js';
import { SUCCESS_STATUSES, type ItemOutcome, type RowResult } from './types.js';

/** Report columns; `idColumn` names the service id (cnvContactId for contacts, id for records). */
export function reportColumns(idColumn: string): string[] {
  return ['line', 'identifier', 'status', idColumn, 'error', 'message'];
}

export interface ReportWriter {
  /** Queues one row; returns a promise only when the output wants the writer to wait (back-pressure). */
  write(result: RowResult): Promise<void> | undefined;
  /** Flushes and closes the file (stdout is flushed, not closed). */
  close(): Promise<void>;
}

// Rows are gathered into chunks of about this many characters before they are written.
const CHUNK_CHARS = 64 * 1024;

/**
 * A CSV report (RFC 4180: a value holding a comma, quote, CR or LF is quoted), written in
 * chunks with back-pressure; `-` writes to `stdout`. A file is written beside its final name
 * and renamed on close, so an earlier report (maybe the one being resumed from) stays whole if
 * the process is killed mid-run.
 */
export async function openReport(path: string, idColumn: string, stdout: Writable): Promise<ReportWriter> {
  const toStdout = path === '-';
  // Only a regular file (or a new one) is written aside and renamed: renaming over a device or
  // a FIFO (--report /dev/stderr, /dev/null, a pipe) would replace it with a plain file.
  const aside = !toStdout && isRegularOrMissing(path);
  const partial = aside ? `${path}.partial` : path;
  const out = toStdout ? stdout : createWriteStream(partial);
  if (!toStdout) {
    // once() rejects with the stream's error: a missing directory, no permission.
    await once(out, 'open').catch((err: unknown) => Promise.reject(reportError(path, err)));
  }
  let failure: unknown;
  out.on('error', (err: Error) => (failure ??= reportError(path, err)));
  let chunk = reportColumns(idColumn).map(csvCell).join(',') + '\n';
  const flush = (): Promise<void> | undefined => {
    const text = chunk;
    chunk = '';
    if (text !== '' && !out.write(text)) return waitForDrain(out, () => failure);
    return undefined;
  };
  return {
    write(r) {
      if (failure) throw failure;
      chunk += `${r.line},${csvCell(r.identifier)},${r.status},${csvCell(r.id ?? '')},${csvCell(r.error ?? '')},${csvCell(r.message ?? '')}\n`;
      return chunk.length >= CHUNK_CHARS ? flush() : undefined;
    },
    async close() {
      await flush();
      if (!toStdout) {
        out.end();
        await finished(out).catch(() => {});
      } else {
        await new Promise<void>((resolve) => (out.writableLength === 0 ? resolve() : out.write('', () => resolve())));
      }
      if (failure) throw failure;
      if (aside) await rename(partial, path).catch((err: unknown) => Promise.reject(reportError(path, err)));
    },
  };
}

function isRegularOrMissing(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}


/** Waits for 'drain', or for an error (reported through `failure`). */
function waitForDrain(out: Writable, failure: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      out.off('drain', done);
      out.off('error', done);
      const f = failure();
      if (f) reject(f);
      else resolve();
    };
    out.on('drain', done);
    out.on('error', done);
  });
}

function reportError(path: string, err: unknown): Error {
  return new UsageError(`--report ${path}: cannot write the report: ${(err as Error).message}`, undefined, 'report_unwritable');
}

/** Rows an earlier report marks as done, by line: the identifier must match too. */
export type DoneRows = Map<number, { identifier: string; outcome: ItemOutcome }>;

/**
 * Reads an earlier report for --resume-from-report and keeps its successful rows. Read whole
 * before the new report is opened, so both may name the same file.
 */
export async function loadDoneRows(path: string, idColumn: string): Promise<DoneRows> {
  const { parse } = await import('csv-parse');
  const done: DoneRows = new Map();
  const input = createReadStream(path);
  const parser = input.pipe(parse({ bom: true, columns: true, relax_column_count: true, skip_empty_lines: true }));
  input.on('error', (err) => parser.destroy(err));
  try {
    let checked = false;
    for await (const row of parser as AsyncIterable<Record<string, string>>) {
      if (!checked) {
        checked = true;
        if (!('line' in row && 'identifier' in row && 'status' in row)) {
          throw resumeError(path, 'not a cnv report: expected the columns line, identifier and status');
        }
      }
      if (!SUCCESS_STATUSES.has(row.status)) continue;
      const line = Number(row.line);
      const id = row[idColumn] || undefined;
      done.set(line, { identifier: row.identifier, outcome: { status: row.status as ItemOutcome['status'], ...(id ? { id } : {}), message: 'done in an earlier run (--resume-from-report)' } });
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw resumeError(path, code === 'ENOENT' ? 'no such file' : `cannot read the report: ${(err as Error).message}`);
  }
  return done;
}

function resumeError(path: string, message: string): UsageError {
  return new UsageError(`--resume-from-report ${path}: ${message}`, 'give the --report file of an earlier run of the same input', 'invalid_input');
}
