import { hash as digest } from 'node:crypto';
import { CliError, ExitCode, TransientError } from '../errors.js';
import type { InputRow } from '../input/input-reader.js';
import { stringifyJson } from '../lib/exact-number.js';
import type { ColumnResolver } from './columns/column-resolver.js';
import type { BatchDeps } from './batch-deps.js';
import type { FileColumns } from './columns/file-columns.js';
import type { CommandResult } from '../output/render.js';
import type { BatchRunOptions } from './batch-run-options.js';
import { closeFile, openFile, checkFile, showColumns, type FileInputSpec, type OpenedFile } from './file-open.js';
import { listProblems, MAX_LISTED_PROBLEMS, Notes } from './run-notes.js';
import { startProgress, type Progress } from './progress.js';
import { openReport, type ReportWriter } from './row-report.js';
import type { DoneRows } from './resume.js';
import { InvalidRowError } from './row-body.js';
import { runBatch } from './run-batch.js';
import type { ResultRecord } from './unrecorded.js';
import { writeSummaryJson } from '../output/summary-json.js';
import { BatchCounts, batchStatus, quietFailureLine, summaryData, summaryLine } from './summary.js';
import type { BatchItem, BatchSender, ItemOutcome, PreparedRow, RowResult } from './types.js';

/**
 * A row as a command prepares it (`identifier` names it in the report): what to send, why it is
 * invalid, or its outcome known without sending it (`done`: a sync's `unchanged`; `payload`: what
 * it would have sent, so that a report's earlier result for the same body still wins).
 */
export type Prepared<P> =
  | { identifier: string; payload: P; invalid?: undefined; done?: undefined; note?: string }
  | { identifier: string; invalid: { error: string; message: string }; done?: undefined }
  | { identifier: string; invalid?: undefined; done: ItemOutcome; payload?: P };

/** One request as a --dry-run shows it (one NDJSON line each). */
interface RequestPreview {
  method: string;
  path: string;
  body: unknown;
}

/** How a file run's rows become requests and results: its input is a FileInputSpec (src/batch/file-open.ts). */
export interface FileRowsSpec<P> {
  /**
   * Local validation of one readable row (zod at the edge); never throws for a bad row but an
   * InvalidRowError. A row may come back decided (`done`: a sync's `unchanged`), then not sent.
   */
  prepare(row: InputRow, columns: ColumnResolver): Prepared<P>;
  send: BatchSender<P>;
  /** The request a chunk is sent as: what --dry-run prints. */
  request(items: BatchItem<P>[]): RequestPreview;
  /** Optional per-key ordering across chunks (see runBatch). */
  orderKey?: (payload: P) => string | readonly string[] | undefined;
  /**
   * Rows the command adds once the input was read to its end and every row of it has its result,
   * when nothing stopped the run (audience sync's removals): a second pass of the engine, with
   * its own sender, into the same report, counts and summary. Given the counts so far.
   */
  after?(counts: BatchCounts): Promise<FilePass<unknown> | undefined>;
  /** What the command adds to the summary (a sync's counts), and its exit code in place of 0. */
  summary?: {
    /** The summary line in place of the file run's (a sync's plan says what it decided, not "0 valid"). */
    first?(counts: BatchCounts, elapsedMs: number): string | undefined;
    /** What the rows came to, in the summary line in place of `N succeeded (...)` (a sync's: `50 sent, 4950 unchanged`). */
    outcome?(counts: BatchCounts): string;
    line(counts: BatchCounts): string | undefined;
    data(counts: BatchCounts): Record<string, unknown>;
    exitCode?(code: number): number;
  };
}

/** Rows a file run sends after its input's (FileRowsSpec.after): none of them is a line of the input. */
export interface FilePass<Q> {
  rows: ReadonlyArray<PreparedRow<Q>>;
  send(items: BatchItem<Q>[], signal: AbortSignal): Promise<ItemOutcome[]>;
  request(items: BatchItem<Q>[]): RequestPreview;
  chunkSize: number;
  concurrency: number;
}

/** A file run: the input, how its rows become requests, and how they are sent. */
export type FileBatchSpec<P> = FileInputSpec & FileRowsSpec<P>;

/**
 * Runs a file through the batch engine with everything a command needs around it: input
 * reading, validation, --resume-from-report, the report, progress, the summary on stderr
 * (also as JSON with --json) and the exit code (0, 6, or the error that stopped the run).
 */
export async function runFileBatch<P>(deps: BatchDeps, spec: FileBatchSpec<P>): Promise<CommandResult> {
  const opened = await openFile(deps, spec);
  await checkFile(deps, opened);
  return sendFile(deps, opened, spec);
}

/**
 * The second half of a file run, for a command that opens the file itself (`openFile`,
 * `checkFile`) and has work of its own before the rows (a sync's refresh): the rows of
 * `opened` prepared by `rows` and sent, the report, the summary and the exit code.
 */
export async function sendFile<P>(deps: BatchDeps, opened: OpenedFile, rows: FileRowsSpec<P>): Promise<CommandResult> {
  const spec: FileBatchSpec<P> = { ...opened.spec, ...rows };
  const { options } = spec;
  const idColumn = spec.idColumn ?? 'cnvContactId';
  const report = options.report
    ? await openReport(options.report, idColumn, deps.io.stdout, {
        job: opened.job,
        done: opened.done,
        redact: (text) => deps.notices.redact(text),
        signal: deps.signal,
      }).catch(async (err: unknown) => {
        await closeFile(opened);
        throw err;
      })
    : undefined;
  const run: FileRun<P> = {
    deps,
    spec,
    source: opened,
    report,
    done: opened.done,
    counts: new BatchCounts(),
    problems: [],
    notes: new Notes(),
    started: deps.clock.now(),
  };
  const stoppedBy = await sendRows(run);
  return finish(run, stoppedBy);
}

/** One file run, as its parts share it. */
interface FileRun<P> {
  deps: BatchDeps;
  spec: FileBatchSpec<P>;
  source: OpenedFile;
  report: ReportWriter | undefined;
  done: DoneRows | undefined;
  counts: BatchCounts;
  /** The first failed or invalid rows, listed at the end without a report. */
  problems: RowResult[];
  notes: Notes;
  started: number;
}

/** The rows through the batch engine into the report: returns what stopped the run early, if anything did. */
async function sendRows<P>(run: FileRun<P>): Promise<unknown> {
  const { deps, spec, report, counts, problems } = run;
  const { options } = spec;
  const progress = await startProgress(deps, counts, run.started, run.source.input);
  let stoppedBy: unknown;
  // The report could not be written (exit 8, or 2): the run ends with that, after its summary.
  let reportFailed: unknown;
  // A pass's rows are numbered from 0: what the report holds of the passes before is not theirs.
  const engine = <Q>(
    pass: Omit<FilePass<Q>, 'rows'> & {
      rows: AsyncIterable<ReadonlyArray<PreparedRow<Q>>>;
      orderKey?: FileRowsSpec<Q>['orderKey'];
    },
  ) => {
    const before = counts.rows;
    return runBatch({
      rows: pass.rows,
      send: (items, signal) => pass.send(items, signal),
      chunkSize: pass.chunkSize,
      concurrency: pass.concurrency,
      orderKey: pass.orderKey,
      signal: deps.signal,
      dryRun: options.mode !== 'send',
      preview: options.mode === 'dry-run' ? previewPrinter(deps, pass.request, options) : undefined,
      record: report?.record && shifted(report.record, before),
      onResult: (result) => {
        counts.add(result);
        if ((result.status === 'failed' || result.status === 'invalid') && problems.length <= MAX_LISTED_PROBLEMS)
          problems.push(result);
        return report?.write(result);
      },
    });
  };
  try {
    ({ stoppedBy } = await engine<P>({
      rows: preparedRows(run, progress),
      send: spec.send,
      request: spec.request,
      chunkSize: options.chunkSize,
      concurrency: options.concurrency,
      orderKey: spec.orderKey,
    }));
    const pass = stoppedBy === undefined && !deps.signal.aborted ? await spec.after?.(counts) : undefined;
    if (pass) {
      progress.setTotal(counts.rows + pass.rows.length);
      ({ stoppedBy } = await engine({ ...pass, rows: once(pass.rows) }));
    }
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

/** A record of results counted from `offset` on (a second pass's first result is its 0th). */
function shifted(record: ResultRecord, offset: number): ResultRecord {
  if (offset === 0) return record;
  return {
    recorded: () => Math.max(0, record.recorded() - offset),
    waitBeyond: (count) => record.waitBeyond(count + offset),
    error: () => record.error(),
  };
}

async function* once<T>(rows: T): AsyncGenerator<T> {
  yield rows;
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

/**
 * The run's end: the problems and notes, the summary (a line, --quiet's failure line, the --json
 * document, --summary-json), the exit code or the error.
 */
function finish<P>(run: FileRun<P>, stoppedBy: unknown): CommandResult {
  const { deps, counts } = run;
  const { options, summary } = run.spec;
  // An interruption (or stdout closed) wins: a report on a closed stdout fails because of it.
  const ending = deps.signal.aborted ? deps.signal.reason : stoppedBy;
  const base =
    stoppedBy === undefined ? counts.exitCode() : ending instanceof CliError ? ending.exitCode : ExitCode.internal;
  const exitCode = base === ExitCode.ok && summary?.exitCode ? summary.exitCode(base) : base;
  if (!options.report) listProblems(deps.notices, run.problems, counts);
  run.notes.show(deps.notices);
  run.spec.cells?.blanks.show(deps.notices);
  const info = {
    elapsedMs: deps.clock.now() - run.started,
    dryRun: options.mode !== 'send',
    report: options.report,
    stopped: stoppedBy === undefined ? undefined : messageOf(stoppedBy),
  };
  deps.notices.info(summary?.first?.(counts, info.elapsedMs) ?? summaryLine(counts, info, summary?.outcome?.(counts)));
  const extra = summary?.line(counts);
  if (extra) deps.notices.info(extra);
  const more = summary?.data(counts) ?? {};
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
  let prepared: Prepared<P>;
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

/**
 * A digest of what a row sends (its request body, flag defaults included, numbers as their digits):
 * 16 hex digits (the one-shot hash costs half of createHash's).
 */
export function payloadHash(payload: unknown): string {
  return digest('sha256', stringifyJson(payload), 'hex').slice(0, 16);
}

/**
 * --dry-run: each request as one NDJSON line on stdout (exact numbers, key masked), unless stdout
 * holds the report or summary.
 */
function previewPrinter<P>(
  deps: BatchDeps,
  request: (items: BatchItem<P>[]) => RequestPreview,
  options: BatchRunOptions,
): ((items: BatchItem<P>[]) => void) | undefined {
  if (options.report === '-' || options.summaryJson === '-' || deps.printDocument) {
    deps.notices.info(
      `dry run: the requests are not printed, as stdout holds the ${options.report === '-' ? 'report' : 'summary'}`,
    );
    return undefined;
  }
  return (items) => {
    const { method, path, body } = request(items);
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
