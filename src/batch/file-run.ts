import { hash as digest } from 'node:crypto';
import { CliError, ExitCode, TransientError, UsageError } from '../errors.js';
import { openInput, type InputRow, type OpenedInput } from '../input/input-reader.js';
import type { Notices } from '../output/notices.js';
import { stringifyJson } from '../lib/exact-number.js';
import { columnTableLines, type ColumnEntry } from './columns/column-table.js';
import type { ColumnResolver, ResolvedColumn } from './columns/column-resolver.js';
import type { BatchDeps } from './batch-deps.js';
import { FileColumns, type FileColumnsSpec } from './columns/file-columns.js';
import type { CommandResult } from '../output/render.js';
import type { BatchRunOptions } from './batch-run-options.js';
import { settleNumbers, type FieldCells } from './field-cells.js';
import { listProblems, MAX_LISTED_PROBLEMS, Notes } from './run-notes.js';
import { startProgress, type Progress } from './progress.js';
import { openReport, type ReportWriter } from './row-report.js';
import type { ReportJob } from './row-report-job.js';
import { loadDoneRows, type DoneRows } from './resume.js';
import { refuseUnfinishedReport } from './report-unfinished.js';
import { InvalidRowError } from './row-body.js';
import { runBatch } from './run-batch.js';
import { writeSummaryJson } from '../output/summary-json.js';
import { BatchCounts, batchStatus, quietFailureLine, summaryData, summaryLine } from './summary.js';
import type { BatchItem, BatchSender, ItemOutcome, PreparedRow, RowResult } from './types.js';

/** A validated row: what to send, or why it is invalid. `identifier` names the row in the report either way. */
export type Prepared<P> =
  | { identifier: string; payload: P; invalid?: undefined; done?: undefined; note?: string }
  | { identifier: string; invalid: { error: string; message: string }; done?: undefined };

/**
 * A row whose outcome is known without sending it (a sync's `unchanged`; `payload`: what it
 * would have sent, so that a report's earlier result for the same body still wins), or a Prepared row.
 */
export type Decided<P> = Prepared<P> | { identifier: string; invalid?: undefined; done: ItemOutcome; payload?: P };

/** One request as a --dry-run shows it (one NDJSON line each). */
interface RequestPreview {
  method: string;
  path: string;
  body: unknown;
}

/** A file run: the input, how its rows become requests, and how they are sent. */
export interface FileBatchSpec<P> {
  /** The input file, or `-` for stdin. */
  path: string;
  /** The command and what it writes to, as its report names them (--resume-from-report checks them). */
  job: Omit<ReportJob, 'input'>;
  options: BatchRunOptions;
  /** How the file's columns resolve, checked before any row is sent (src/batch/columns/file-columns.ts). */
  columns: FileColumnsSpec;
  /** Local validation of one readable row (zod at the edge); never throws for a bad row but an InvalidRowError. */
  prepare(row: InputRow, columns: ColumnResolver): Decided<P>;
  send: BatchSender<P>;
  /** The request a chunk is sent as: what --dry-run prints. */
  request(items: BatchItem<P>[]): RequestPreview;
  /** Optional per-key ordering across chunks (see runBatch). */
  orderKey?: (payload: P) => string | readonly string[] | undefined;
  /** Report column of ItemOutcome.id (default cnvContactId). */
  idColumn?: string;
  /** The cells of fields: the number convention, settled before any request, and the blank cells, said at the end. */
  cells?: FieldCells;
  /**
   * Work done before any row is prepared or sent (a sync's snapshot refresh). It runs while the
   * file is opened, its columns resolved and its numbers scanned; `signal` stops it when the
   * file is refused meanwhile.
   */
  beforeRows?: (signal: AbortSignal) => Promise<void>;
  /** A check of the file's resolved columns before any row is sent (a sync compares them with its last run's); throws to refuse the file. */
  columnsResolved?: (columns: readonly ResolvedColumn[]) => Promise<void>;
  /** What the command adds to the summary (a sync's counts), and its exit code in place of 0. */
  summary?: {
    /** The summary line in place of the file run's (a sync's plan says what it decided, not "0 valid"). */
    first?(counts: BatchCounts, elapsedMs: number): string | undefined;
    line(counts: BatchCounts): string | undefined;
    data(counts: BatchCounts): Record<string, unknown>;
    exitCode?(code: number): number;
  };
}

/**
 * Runs a file through the batch engine with everything a command needs around it: input
 * reading, validation, --resume-from-report, the report, progress, the summary on stderr
 * (also as JSON with --json) and the exit code (0, 6, or the error that stopped the run).
 */
export async function runFileBatch<P>(deps: BatchDeps, spec: FileBatchSpec<P>): Promise<CommandResult> {
  const { options } = spec;
  const idColumn = spec.idColumn ?? 'cnvContactId';
  if (options.report && options.report !== '-' && options.report === spec.path) {
    throw new UsageError('--report: must not be the input file');
  }
  // The HTTP stack loads while the file is opened and its first rows are read and checked.
  if (options.mode === 'send') deps.prepareHttp();
  // The account too: a report of the same audience id in another business is no report of this run.
  const account = await deps.account();
  const job: ReportJob = { ...spec.job, input: spec.path, ...(account ? { account } : {}) };
  const done = options.resumeFromReport
    ? await loadDoneRows(options.resumeFromReport, idColumn, job, deps.signal)
    : undefined;
  if (options.report && options.report !== '-' && !options.resumeFromReport && !options.force)
    await refuseUnfinishedReport(options.report, deps.signal);
  // The refresh mostly waits on the network and the disk: the file's opening and scan (CPU) go on meanwhile.
  const before = new AbortController();
  const preparing = spec.beforeRows?.(before.signal);
  preparing?.catch(() => {}); // awaited below, whichever way the file's opening goes
  let source: RowSource;
  try {
    source = await openRows(deps, spec);
  } catch (err) {
    before.abort(err);
    await preparing?.catch(() => {});
    throw err;
  }
  await preparing?.catch(async (err: unknown) => {
    await source.batches.return();
    throw err;
  });
  const report = options.report
    ? await openReport(options.report, idColumn, deps.io.stdout, {
        job,
        done,
        redact: (text) => deps.notices.redact(text),
        signal: deps.signal,
      })
    : undefined;
  const run: FileRun<P> = {
    deps,
    spec,
    source,
    report,
    done,
    counts: new BatchCounts(),
    problems: [],
    notes: new Notes(),
    started: deps.clock.now(),
  };
  const stoppedBy = await sendRows(run);
  return finish(run, stoppedBy);
}

/** The input once its columns are resolved: its first batch read, the rest to come. */
interface RowSource {
  input: OpenedInput;
  columns: FileColumns;
  batches: AsyncGenerator<InputRow[], void, undefined>;
  first: IteratorResult<InputRow[], void>;
}

/** One file run, as its parts share it. */
interface FileRun<P> {
  deps: BatchDeps;
  spec: FileBatchSpec<P>;
  source: RowSource;
  report: ReportWriter | undefined;
  done: DoneRows | undefined;
  counts: BatchCounts;
  /** The first failed or invalid rows, listed at the end without a report. */
  problems: RowResult[];
  notes: Notes;
  started: number;
}

/** Opens the input and resolves its columns from the header (or the first rows) before anything is sent or written. */
async function openRows<P>(deps: BatchDeps, spec: FileBatchSpec<P>): Promise<RowSource> {
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
  await spec.columnsResolved?.(columns.resolved()).catch(async (err: unknown) => {
    await batches.return();
    throw err;
  });
  if (spec.cells) {
    await settleNumbers(deps, spec.cells, input, columns, spec.path, options).catch(async (err: unknown) => {
      await batches.return();
      throw err;
    });
  }
  return { input, columns, batches, first };
}

/** The rows through the batch engine into the report: returns what stopped the run early, if anything did. */
async function sendRows<P>(run: FileRun<P>): Promise<unknown> {
  const { deps, spec, report, counts, problems } = run;
  const { options } = spec;
  const progress = await startProgress(deps, counts, run.started, run.source.input);
  let stoppedBy: unknown;
  // The report could not be written (exit 8, or 2): the run ends with that, after its summary.
  let reportFailed: unknown;
  try {
    ({ stoppedBy } = await runBatch({
      rows: preparedRows(run, progress),
      send: spec.send,
      chunkSize: options.chunkSize,
      concurrency: options.concurrency,
      orderKey: spec.orderKey,
      signal: deps.signal,
      dryRun: options.mode !== 'send',
      preview: options.mode === 'dry-run' ? previewPrinter(deps, spec, options) : undefined,
      record: report?.record,
      onResult: (result) => {
        counts.add(result);
        if ((result.status === 'failed' || result.status === 'invalid') && problems.length <= MAX_LISTED_PROBLEMS)
          problems.push(result);
        return report?.write(result);
      },
    }));
  } catch (err) {
    if (!(err instanceof CliError)) {
      progress.stop();
      await report?.close().catch(() => {});
      throw err;
    }
    reportFailed = err;
  }
  progress.stop();
  await report?.close().catch((err: unknown) => (reportFailed ??= err));
  return reportFailed ?? stoppedBy;
}

/** The input's rows, checked and prepared, batch by batch (columns first met in a later JSON row are shown as they come). */
async function* preparedRows<P>(run: FileRun<P>, progress: Progress): AsyncGenerator<Array<PreparedRow<P>>> {
  const { source, spec, notes, counts, done } = run;
  // What a later resume compares: only worth its cost when a report records it or one is read.
  const hashing = run.report !== undefined || done !== undefined;
  let read = 0;
  try {
    for (let next = source.first; !next.done; next = await source.batches.next()) {
      showColumns(
        run.deps.notices,
        `columns first met at line ${next.value[0].line} of ${source.input.name}`,
        await source.columns.more(next.value),
      );
      read += next.value.length;
      progress.setRead(read);
      yield next.value.map((row) => notes.see(prepareRow(row, spec, source.columns, done, counts, hashing)));
    }
  } finally {
    await source.batches.return();
  }
  progress.setTotal(read);
}

/** The run's end: the problems and notes, the summary (a line, --quiet's failure line, the --json document, --summary-json), the exit code or the error. */
function finish<P>(run: FileRun<P>, stoppedBy: unknown): CommandResult {
  const { deps, counts } = run;
  const { options } = run.spec;
  // An interruption (or stdout closed) wins: a report on a closed stdout fails because of it.
  const ending = deps.signal.aborted ? deps.signal.reason : stoppedBy;
  const base =
    stoppedBy === undefined ? counts.exitCode() : ending instanceof CliError ? ending.exitCode : ExitCode.internal;
  const exitCode = base === ExitCode.ok && run.spec.summary?.exitCode ? run.spec.summary.exitCode(base) : base;
  if (!options.report) listProblems(deps.notices, run.problems, counts);
  run.notes.show(deps.notices);
  run.spec.cells?.blanks.show(deps.notices);
  const info = {
    elapsedMs: deps.clock.now() - run.started,
    dryRun: options.mode !== 'send',
    report: options.report,
    stopped: stoppedBy === undefined ? undefined : messageOf(stoppedBy),
  };
  deps.notices.info(run.spec.summary?.first?.(counts, info.elapsedMs) ?? summaryLine(counts, info));
  const extra = run.spec.summary?.line(counts);
  if (extra) deps.notices.info(extra);
  const more = run.spec.summary?.data(counts) ?? {};
  const redact = (text: string) => deps.notices.redact(text);
  if (deps.quiet && exitCode === ExitCode.partial) deps.io.stderr.write(redact(quietFailureLine(counts, info)) + '\n');
  const blankCells = run.spec.cells && { blankCells: run.spec.cells.blanks.summary() };
  const document = {
    ...batchStatus(deps, stoppedBy, exitCode),
    ...summaryData(counts, info),
    ...more,
    exitCode,
    columns: run.source.columns.entries(),
    ...blankCells,
  };
  // --json and -q: the same document on stdout (once, when --summary-json - names stdout too).
  deps.printDocument?.(document);
  if (options.summaryJson && !(options.summaryJson === '-' && deps.printDocument))
    writeSummaryJson({ stdout: deps.io.stdout, redact }, options.summaryJson, document);
  if (stoppedBy !== undefined) throw stopError(ending, options.report, deps);
  return { kind: 'none', exitCode };
}

// (Object literals, not spreads: this runs once a row, and a spread costs a micro-second here.)
function prepareRow<P>(
  row: InputRow,
  spec: FileBatchSpec<P>,
  columns: FileColumns,
  done: DoneRows | undefined,
  counts: BatchCounts,
  hashing: boolean,
): PreparedRow<P> {
  const { line } = row;
  const place = row.index === undefined ? undefined : row.index + 1;
  if (row.error !== undefined) {
    return {
      line,
      row: place,
      identifier: '',
      outcome: { status: 'invalid', error: 'malformed_row', message: row.error },
    };
  }
  let prepared: Decided<P>;
  try {
    prepared = spec.prepare(row, columns.resolver);
  } catch (err) {
    if (!(err instanceof InvalidRowError)) throw err;
    return { line, row: place, identifier: '', outcome: { status: 'invalid', error: err.code, message: err.message } };
  }
  const { identifier } = prepared;
  if (prepared.invalid) return { line, row: place, identifier, outcome: { status: 'invalid', ...prepared.invalid } };
  const hash = hashing && prepared.payload !== undefined ? payloadHash(prepared.payload) : undefined;
  // Done earlier only when this same row (its place) sent exactly this (its hash): an edited row goes again.
  const earlier = place === undefined || hash === undefined ? undefined : done?.get(place);
  if (earlier && earlier.hash === hash && earlier.identifier === identifier) {
    counts.earlier++;
    return { line, row: place, identifier, hash, outcome: earlier.outcome };
  }
  if (prepared.done) return { line, row: place, identifier, hash, outcome: prepared.done };
  return { line, row: place, identifier, hash, payload: prepared.payload, note: prepared.note };
}

/** A digest of what a row sends (its request body, flag defaults included, numbers as their digits): 16 hex digits (the one-shot hash costs half of createHash's). */
function payloadHash(payload: unknown): string {
  return digest('sha256', stringifyJson(payload), 'hex').slice(0, 16);
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
function showColumns(notices: Notices, title: string, entries: readonly ColumnEntry[]): void {
  if (entries.length === 0) return;
  for (const line of columnTableLines(title, entries, (text) => notices.redact(text))) notices.info(line);
}

/** --dry-run: each request as one NDJSON line on stdout (exact numbers, key masked), unless stdout holds the report or summary. */
function previewPrinter<P>(
  deps: BatchDeps,
  spec: FileBatchSpec<P>,
  options: BatchRunOptions,
): ((items: BatchItem<P>[]) => void) | undefined {
  if (options.report === '-' || options.summaryJson === '-' || deps.printDocument) {
    deps.notices.info(
      `dry run: the requests are not printed, as stdout holds the ${options.report === '-' ? 'report' : 'summary'}`,
    );
    return undefined;
  }
  return (items) => {
    const { method, path, body } = spec.request(items);
    deps.io.stdout.write(
      deps.notices.redact(stringifyJson({ dryRun: true, method, path, lines: items.map((i) => i.line), body })) + '\n',
    );
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// The error the command ends with: a transient failure or an interruption gets how to resume
// (the exact command when a report file holds the results); any other as it is.
function stopError(err: unknown, report: string | undefined, deps: BatchDeps): unknown {
  if (!(err instanceof CliError)) return err;
  const resumable = report !== undefined && report !== '-';
  const again = resumable
    ? (deps.resumeCommand?.(report) ?? `the same command with --resume-from-report ${report}`)
    : undefined;
  if (err.exitCode === ExitCode.transient) {
    const hint = again
      ? `rows without a confirmed result are "skipped" in ${report}; send them later with: ${again}`
      : 'run again later with --report FILE, then --resume-from-report FILE sends only what is missing';
    return new TransientError(`the run stopped: ${err.message}`, { code: err.code, hint, cause: err });
  }
  if (err.code === 'interrupted' && again) {
    const hint = `rows not sent are "skipped" in ${report}; to send only those, run: ${again}`;
    return new CliError(err.message, { exitCode: err.exitCode, code: err.code, hint, cause: err });
  }
  return err;
}
