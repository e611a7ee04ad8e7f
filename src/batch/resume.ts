import { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import { openReadStream } from '../files/file-streams.js';
import { csvRecords, CsvParser } from '../input/csv-parser.js';
import { MAX_COLUMNS } from '../limits/limits.js';
import { describeJob, parseJobCell, sameJob, type ReportJob } from './row-report-job.js';
import { SUCCESS_STATUSES, type KnownRow, type RowStatus } from './types.js';

/** The rows an earlier report marks as done, by their place among the input's rows (`row`, 1-based). */
export type DoneRows = Map<number, KnownRow & { hash: string }>;

// The first line is the header, in a few hundred characters;
// a record holds an input value (an identifier of up to MAX_WRITE_BYTES), a message of up to
// 1,000 characters and the job.
const MAX_FIRST_LINE = 64 * 1024;
/** The most one record of a report may hold (its cells' UTF-8 bytes). */
export const MAX_REPORT_RECORD = 32 * 1024 * 1024;
const NEEDED = ['line', 'identifier', 'status', 'row', 'hash', 'job'];

/**
 * Reads an earlier report for --resume-from-report and keeps its successful rows. The report
 * must be of the same job (the `job` cell of its rows: command, target, input file name,
 * account), else exit 2: a report of another command or
 * audience would make this run skip rows it never sent. Read whole before the new report is
 * opened, so both may name the same file; the reading stops at once with `signal` (a FIFO, a
 * huge file), and a first line or record past its size ends it (exit 2).
 */
export async function loadDoneRows(
  path: string,
  idColumn: string,
  job: ReportJob,
  signal?: AbortSignal,
): Promise<DoneRows> {
  const done: DoneRows = new Map();
  let input: Readable | undefined;
  try {
    input = await openReadStream(path, signal);
    const { first, rest } = await firstLine(input);
    const head = first?.replace(/^\uFEFF/, '').replace(/\r$/, '');
    checkHeader(path, head);
    const columns = new CsvParser().push(`${head}\n`)[0].fields;
    const judged = new Map<string, boolean>();
    for await (const row of reportRows(utf8Pieces(rest), columns)) {
      // Each row names its run; a row cut short by a kill names none and counts for nothing.
      const cell = row.job;
      if (cell === undefined || cell === '') continue;
      let ours = judged.get(cell);
      if (ours === undefined) {
        const earlier = parseJobCell(cell);
        if (earlier) checkJob(path, earlier, job);
        judged.set(cell, (ours = earlier !== undefined));
      }
      if (!ours) continue;
      if (!SUCCESS_STATUSES.has(row.status ?? '')) continue;
      const at = Number(row.row);
      if (!Number.isInteger(at) || at < 1 || !row.hash) continue;
      const id = row[idColumn] || undefined;
      // A report left by a killed run may hold a row more than once: a later success wins.
      done.set(at, {
        line: Number(row.line),
        identifier: row.identifier ?? '',
        hash: row.hash,
        outcome: {
          status: row.status as RowStatus,
          ...(id ? { id } : {}),
          message: 'done in an earlier run (--resume-from-report)',
          earlier: true,
        },
      });
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof UsageError) throw err;
    throw resumeError(path, readFailure(err as NodeJS.ErrnoException));
  } finally {
    input?.destroy();
  }
  return done;
}

/**
 * The rows of a report after its header, each by the header's column names (a row cut short
 * lacks the last ones). A record that cannot be read (a kill in the middle of a write) is left
 * out; one past MAX_REPORT_RECORD is no report's (thrown).
 */
async function* reportRows(
  text: AsyncIterable<string>,
  columns: readonly string[],
): AsyncGenerator<Record<string, string>> {
  for await (const records of csvRecords(text, MAX_REPORT_RECORD)) {
    for (const { fields, error } of records) {
      if (error !== undefined) continue;
      // No report of cnv's is that wide: a line of commas is not held as rows.
      if (fields.length > MAX_COLUMNS) throw Object.assign(new Error('too many cells'), { code: TOO_MANY_CELLS });
      const row: Record<string, string> = Object.create(null);
      fields.forEach((value, i) => {
        if (i < columns.length) row[columns[i]] = value;
      });
      yield row;
    }
  }
}

const TOO_MANY_CELLS = 'CSV_TOO_MANY_CELLS';

/** What stopped the reading of the report, in words. */
function readFailure(e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'CSV_RECORD_TOO_LONG')
    return `not a cnv report: a record is longer than ${MAX_REPORT_RECORD / 1024 / 1024} MiB`;
  if (e.code === TOO_MANY_CELLS)
    return `not a cnv report: a record holds more than ${MAX_COLUMNS.toLocaleString('en-US')} cells`;
  return `cannot read the report: ${e.message}`;
}

/** Text from UTF-8 bytes read in pieces (a character split between two pieces is read whole). */
async function* utf8Pieces(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const piece of bytes) yield decoder.decode(piece, { stream: true });
  yield decoder.decode();
}

/**
 * The first line must be the header of a report as this version writes it, `job` column
 * included; a report of an earlier cnv (its run on a first line of its own, or not named at all)
 * is refused as any other file (docs/guarantees.md, "Compatibility").
 */
function checkHeader(path: string, head: string | undefined): void {
  if (head === undefined)
    throw resumeError(path, 'not a cnv report: no header line (empty, or a first line longer than 64 KiB)');
  const names = head.split(',');
  if (!NEEDED.every((column) => names.includes(column))) {
    throw resumeError(
      path,
      'not a report of this version of cnv: its first line is not the header (line, identifier, status, ..., row, hash, job)',
    );
  }
}

function checkJob(path: string, earlier: ReportJob, job: ReportJob): void {
  if (sameJob(earlier, job)) return;
  const withAccount = earlier.account !== undefined && job.account !== undefined && earlier.account !== job.account;
  const reports = `it reports ${describeJob(earlier, withAccount)}, not ${describeJob(job, withAccount)}`;
  throw new UsageError(
    `--resume-from-report ${path}: ${reports}; resuming from it would skip rows this run never sent`,
    'give the --report file of an earlier run of the same command, target, input file and account',
    'report_mismatch',
  );
}

/** The text up to the first line break (at most MAX_FIRST_LINE characters), and the rest of the stream after it. */
async function firstLine(input: Readable): Promise<{ first: string | undefined; rest: AsyncIterable<Buffer> }> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  for (;;) {
    const next = await chunks.next();
    if (next.done)
      return { first: head.length > 0 ? head.toString('utf8') : undefined, rest: (async function* () {})() };
    head = Buffer.concat([head, next.value]);
    const end = head.indexOf(10);
    if (end >= 0 || head.length > MAX_FIRST_LINE) {
      const cut = end >= 0 ? end : MAX_FIRST_LINE;
      const after = head.subarray(end >= 0 ? end + 1 : head.length);
      const rest = (async function* () {
        if (after.length > 0) yield after;
        for (let more = await chunks.next(); !more.done; more = await chunks.next()) yield more.value;
      })();
      return { first: end >= 0 ? head.subarray(0, cut).toString('utf8') : undefined, rest };
    }
  }
}

function resumeError(path: string, message: string): UsageError {
  return new UsageError(
    `--resume-from-report ${path}: ${message}`,
    'give the --report file of an earlier run of the same input, ' +
      'or run without --resume-from-report to send the whole file again',
    'invalid_input',
  );
}
