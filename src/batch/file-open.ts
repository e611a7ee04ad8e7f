import { UsageError } from '../errors.js';
import { checkInputText, openInput, type InputRow, type OpenedInput } from '../input/input-reader.js';
import type { Notices } from '../output/notices.js';
import { columnTableLines, type ColumnEntry } from './columns/column-table.js';
import type { BatchDeps } from './batch-deps.js';
import { FileColumns, type FileColumnsSpec } from './columns/file-columns.js';
import type { BatchRunOptions } from './batch-run-options.js';
import { settleNumbers, type FieldCells } from './field-cells.js';
import type { ReportJob } from './row-report-job.js';
import { loadDoneRows, type DoneRows } from './resume.js';
import { refuseUnfinishedReport } from './report-unfinished.js';

/** What a file run reads: the input, its columns and cells, and what its report and resume name. */
export interface FileInputSpec {
  /** The input file, or `-` for stdin. */
  path: string;
  /** The command and what it writes to, as its report names them (--resume-from-report checks them). */
  job: Omit<ReportJob, 'input'>;
  options: BatchRunOptions;
  /** How the file's columns resolve, checked before any row is sent (src/batch/columns/file-columns.ts). */
  columns: FileColumnsSpec;
  /** Report column of ItemOutcome.id (default cnvContactId). */
  idColumn?: string;
  /** The cells of fields: the number convention, settled before any request, and the blank cells, said at the end. */
  cells?: FieldCells;
}

/** A file run's input once opened: its columns resolved, its first batch read, the rest to come. */
export interface OpenedFile {
  spec: FileInputSpec;
  job: ReportJob;
  /** The rows an earlier report holds (--resume-from-report). */
  done: DoneRows | undefined;
  input: OpenedInput;
  columns: FileColumns;
  batches: AsyncGenerator<InputRow[], void, undefined>;
  first: IteratorResult<InputRow[], void>;
}

/**
 * Opens a file run's input before anything is sent or written: the report and resume checked,
 * the file opened and its columns resolved from the header (or the first rows). The file is
 * checked whole after (`checkFile`), so a caller may check the columns first.
 */
export async function openFile(deps: BatchDeps, spec: FileInputSpec): Promise<OpenedFile> {
  const { options } = spec;
  if (options.report && options.report !== '-' && options.report === spec.path) {
    throw new UsageError('--report: must not be the input file');
  }
  // The HTTP stack loads while the file is opened and its first rows are read and checked.
  if (options.mode === 'send') deps.prepareHttp();
  // The account too: a report of the same audience id in another business is no report of this run.
  const account = await deps.account();
  const job: ReportJob = { ...spec.job, input: spec.path, ...(account ? { account } : {}) };
  const done = options.resumeFromReport
    ? await loadDoneRows(options.resumeFromReport, spec.idColumn ?? 'cnvContactId', job, deps.signal)
    : undefined;
  if (options.report && options.report !== '-' && !options.resumeFromReport && !options.force)
    await refuseUnfinishedReport(options.report, deps.signal);
  return { spec, job, done, ...(await openRows(deps, spec)) };
}

/** Ends the reading of an opened file that will not be run (a refusal after it was opened). */
export async function closeFile(opened: OpenedFile): Promise<void> {
  await opened.batches.return();
}

/**
 * The check pass, before the first request: a regular file is read once whole, its text checked
 * (src/input/text-decode.ts) and, when its number convention is to be found, its NUMBER cells
 * scanned by the same read (src/batch/field-cells.ts). Closes the file when it refuses it.
 * This is a second opening of the file, beside the one whose rows are sent, and the only one:
 * rows are sent as they are read (a file is never held whole), while a bad byte or numbers of both
 * conventions at its end must refuse it before its first row is sent. stdin and FIFOs cannot be
 * read twice: their text and numbers are checked as the rows come (docs/batches.md, docs/sync.md).
 */
export async function checkFile(deps: BatchDeps, opened: OpenedFile): Promise<void> {
  const { spec, input } = opened;
  try {
    const scanned = spec.cells
      ? await settleNumbers(deps, spec.cells, {
          input,
          columns: opened.columns,
          path: spec.path,
          options: spec.options,
        })
      : false;
    if (!scanned && input.size !== undefined) await checkInputText(spec.path, input.name, spec.options.encoding);
  } catch (err) {
    await closeFile(opened);
    throw err;
  }
}

async function openRows(
  deps: BatchDeps,
  spec: FileInputSpec,
): Promise<Pick<OpenedFile, 'input' | 'columns' | 'batches' | 'first'>> {
  const { options } = spec;
  // `--batch -` typed at a terminal would otherwise wait in silence.
  if (spec.path === '-' && deps.io.stdinIsTTY)
    deps.io.stderr.write(
      'reading rows from stdin (the terminal): paste them, then press Ctrl-D on a new line to end\n',
    );
  const columns = await FileColumns.open(
    spec.columns,
    options.columns,
    spec.path === '-' ? 'stdin' : spec.path,
    deps.signal,
  );
  let header: readonly string[] | undefined;
  let headerLine = 1;
  const input = await openInput(deps.io.stdin, {
    path: spec.path,
    // A regular file's text is checked by `checkFile`, whole, before the first request.
    checkText: false,
    format: options.inputFormat,
    delimiter: options.delimiter,
    encoding: options.encoding,
    unnamedOk: options.columns.ignoreColumn?.includes(''),
    onHeader: (names, line) => {
      header = names;
      headerLine = line;
    },
    signal: deps.signal,
  });
  const batches = limitRows(input.batches, options.maxRows);
  const first = await batches.next();
  await columns.start(header, first.done ? [] : first.value, headerLine).catch(async (err: unknown) => {
    await batches.return();
    throw err;
  });
  showColumns(deps.notices, `columns of ${input.name} for ${spec.columns.rules.endpoint}`, columns.entries());
  return { input, columns, batches, first };
}

/** The input's batches, ending after `max` rows (--max-rows); the rest of the file is not read. */
async function* limitRows(
  batches: AsyncIterable<InputRow[]>,
  max: number | undefined,
): AsyncGenerator<InputRow[], void, undefined> {
  let left = max ?? Infinity;
  for await (const batch of batches) {
    if (batch.length >= left) {
      if (left > 0) yield batch.slice(0, left);
      return;
    }
    left -= batch.length;
    yield batch;
  }
}

/** The column table, once, on stderr (not with --quiet); columns of JSON rows met later, as they come. */
export function showColumns(notices: Notices, title: string, entries: readonly ColumnEntry[]): void {
  if (entries.length === 0) return;
  for (const line of columnTableLines(title, entries, (text) => notices.redact(text))) notices.info(line);
}
