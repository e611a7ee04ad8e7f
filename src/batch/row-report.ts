import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { LocalFileError, UsageError } from '../errors.js';
import { csvCell } from '../output/csv-line.js';
import { csvRecords } from '../input/csv-parser.js';
import { isStreamTarget, openWriteStream } from '../files/file-streams.js';
import { drained } from '../output/write.js';
import { openReportFile } from './row-report-file.js';
import { jobCell, type ReportJob } from './row-report-job.js';
import { MAX_REPORT_RECORD, type DoneRows } from './resume.js';
import type { ResultRecord } from './unrecorded.js';
import type { RowResult } from './types.js';

/**
 * Report columns; `idColumn` names the service id (cnvContactId for contacts, id for records).
 * The last, `job`, names the run on every row (row-report-job.ts): the first line is the header.
 */
function reportColumns(idColumn: string): string[] {
  return ['line', 'identifier', 'status', idColumn, 'error', 'message', 'row', 'hash', 'job'];
}

export interface ReportWriter {
  /** Queues one row; returns a promise only when the output wants the writer to wait (back-pressure). */
  write(result: RowResult): Promise<void> | undefined;
  /** Flushes and closes the file (stdout is flushed, not closed). */
  close(): Promise<void>;
  /** How far the results are on disk: only for a regular file, the one kind that can be resumed from. */
  record?: ResultRecord;
}

// Rows are gathered into chunks of about this many characters before they are written: big
// for stdout (throughput), smaller for a device or a FIFO, so that a failing one is seen early.
const CHUNK_CHARS = { stdout: 64 * 1024, other: 16 * 1024 };

/**
 * A CSV report (RFC 4180: a value holding a comma, quote, CR or LF is quoted). A regular file
 * (or a new one) is always a valid, resumable report, even after kill -9 (see row-report-file.ts).
 * `-` writes to `stdout`; a device or a FIFO (--report /dev/stderr, a pipe) is written as a
 * stream, in input order.
 */
export async function openReport(
  path: string,
  idColumn: string,
  stdout: Writable,
  opts: {
    /** The run the report is of: named in every row's `job` cell, for --resume-from-report to check. */
    job: ReportJob;
    /** Rows done in an earlier run (--resume-from-report): they are in the file from the start. */
    done?: DoneRows;
    /** Ends the wait for a reader of a FIFO. */
    signal?: AbortSignal;
    /** Masks secrets in what the server sent (error codes, messages, ids) before it is written. */
    redact?: (text: string) => string;
  },
): Promise<ReportWriter> {
  const redact = memoized(opts.redact ?? ((text: string) => text));
  const job = csvCell(jobCell(opts.job));
  // What the server sent (id, error code, message): masked, then quoted.
  const served = (text: string | undefined) => csvCell(redact(text ?? ''));
  const format = (r: RowResult) =>
    `${r.line},${csvCell(r.identifier)},${r.status},${served(r.id)},${served(r.error)},${served(r.message)},` +
    `${r.row ?? ''},${r.hash ?? ''},${job}\n`;
  const header = reportColumns(idColumn).map(csvCell).join(',') + '\n';
  const toStdout = path === '-';
  // Renaming over a device or a FIFO would replace it with a plain file: those are streamed to.
  if (toStdout || isStreamTarget(path))
    return streamReport(path, toStdout ? stdout : undefined, header, format, opts.signal);
  const carried = [...(opts.done ?? new Map()).entries()]
    .sort(([a], [b]) => a - b)
    .map(([row, { line, identifier, hash, outcome }]): RowResult => ({ line, identifier, row, hash, ...outcome }));
  const file = await openReportFile({
    path,
    header,
    format,
    carried,
    fail: (err) => reportError(path, err, true),
    records: reportRecords,
  });
  return { write: (r) => file.write(r), close: () => file.close(), record: file };
}

async function streamReport(
  path: string,
  stdout: Writable | undefined,
  header: string,
  format: (r: RowResult) => string,
  signal?: AbortSignal,
): Promise<ReportWriter> {
  let out: Writable;
  try {
    out = stdout ?? (await openWriteStream(path, signal));
  } catch (err) {
    throw signal?.aborted ? signal.reason : reportError(path, err);
  }
  if (!stdout && 'pending' in out && out.pending) {
    // A file stream opens in the background: its error (a missing directory, no permission) comes now.
    await new Promise<void>((resolve, reject) => {
      out.once('ready', resolve);
      out.once('error', (err) => reject(reportError(path, err)));
    });
  }
  let failure: unknown;
  out.on('error', (err: Error) => (failure ??= reportError(path, err)));
  // A failed write marks the stream errored before its 'error' event comes (a tick later).
  const failed = (): unknown => failure ?? (out.errored ? (failure = reportError(path, out.errored)) : undefined);
  const chunkChars = stdout ? CHUNK_CHARS.stdout : CHUNK_CHARS.other;
  let chunk = header;
  const flush = (): Promise<void> | undefined => {
    const text = chunk;
    chunk = '';
    if (text !== '' && !out.write(text))
      return waitForDrain(out, failed, (err) => (failure ??= reportError(path, err)));
    return undefined;
  };
  return {
    write(r) {
      if (failed()) throw failure;
      chunk += format(r);
      return chunk.length >= chunkChars ? flush() : undefined;
    },
    async close() {
      await flush();
      if (!stdout) {
        out.end();
        await finished(out).catch(() => {});
      } else {
        await new Promise<void>((resolve) => (out.writableLength === 0 ? resolve() : out.write('', () => resolve())));
      }
      if (failed()) throw failure;
    },
  };
}

/**
 * The rows of a report file from byte `start` (no header there, the rows this run wrote): the
 * row's place (column `row`) and its CSV record, written again as `format` wrote it (csvCell of
 * each cell gives back the text it was read from).
 */
async function* reportRecords(file: FileHandle, start: number): AsyncGenerator<[number, string]> {
  const input = file.createReadStream({ start, autoClose: false, encoding: 'utf8' });
  try {
    for await (const records of csvRecords(input, MAX_REPORT_RECORD)) {
      for (const { fields, error, line } of records) {
        if (error !== undefined)
          throw new Error(`the report's own row (line ${line} from the rows of this run): ${error}`);
        yield [Number(fields[6]), fields.map(csvCell).join(',') + '\n'];
      }
    }
  } finally {
    input.destroy();
  }
}

/** Remembers the last few texts: a stopped run's rows share one message, a failing server's rows a few. */
function memoized(redact: (text: string) => string): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    if (text === '') return text;
    let out = seen.get(text);
    if (out === undefined) {
      out = redact(text);
      if (seen.size >= 256) seen.clear();
      seen.set(text, out);
    }
    return out;
  };
}

/** Waits for 'drain'; a failure (reported through `failure`, or typed by `fail`), now or before, rejects. */
function waitForDrain(out: Writable, failure: () => unknown, fail: (err: unknown) => unknown): Promise<void> {
  return drained(out).then(
    () => {
      if (failure()) throw failure();
    },
    (err: unknown) => Promise.reject(failure() ?? fail(err)),
  );
}

/** A full disk, a read-only file system or no permission: exit 8; anything else (no such directory): exit 2. */
function reportError(path: string, err: unknown, resumable = false): Error {
  if (err instanceof Error && (err instanceof UsageError || err instanceof LocalFileError)) return err;
  const hint = resumable
    ? `free space or fix the permissions, then run again with --resume-from-report ${path}: ` +
      'what the report holds is not sent again'
    : undefined;
  return (
    LocalFileError.from(err, 'report', path, hint) ??
    new UsageError(
      `--report ${path}: cannot write the report: ${(err as Error).message}`,
      undefined,
      'report_unwritable',
    )
  );
}
