import { randomUUID } from 'node:crypto';
import { interruptedBy } from '../errors.js';
import { CommitLog } from './commit-log.js';
import { NO_CRASH, type CrashHook } from './crash-points.js';
import type { ExportDeps } from './export-deps.js';
import type { FileSink } from './file-sink.js';
import { fetchPage, type ExportTarget } from './kinds.js';
import { BlockPool } from './page-format.js';
import { RunFields } from './run-fields.js';
import type { LabelledField } from './csv-layout.js';
import { discardUnusedOutput, openOutput, PageOutput } from './page-output.js';
import { receiver } from './page-receiver.js';
import { cursorRejected, type FetchPage } from './page-source.js';
import type { HttpClient } from '../http/client.js';
import type { Step } from './advance.js';
import { nextPosition, repeatWarnings } from './next-position.js';
import type { ReceivedPage } from './page-receiver.js';
import { planExport } from './plan.js';
import { assertParentDirectory } from '../files/file-streams.js';
import type { ExportRunOptions, RunPlan } from './export-run-options.js';
import { addExtra, type ExportReporter, type ExportSummary, type TypeOutcome } from './run-summary.js';
import type { Position, Seal } from './export-state.js';

/** One run as its loop sees it: what it writes to, what it commits to, and how it fetches. */
export interface ExportRun {
  plan: RunPlan;
  summary: ExportSummary;
  log: CommitLog;
  output: PageOutput;
  /** The committed position the run starts from. */
  start: Position;
  /** What its messages call it: `export contacts`, `export email-events EMAIL_OPEN`. */
  label: string;
  crash: CrashHook;
  /** The run's signal (the deps'), and the end of the run: requests still in flight then are ended. */
  signal: AbortSignal;
  /** Ends the run's requests in flight now (a failure that stops every type of a multi-type run). */
  stop(): void;
  /** A page fetcher for `target`, its rows formatted into the run's pooled blocks. */
  pages(target: ExportTarget, label: string): FetchPage;
  /**
   * Contacts read under a field list (field-watch.ts): asked after each page arrives (pageSource's
   * `trust`), false when the list changed meanwhile (the page is to be read again; what depends
   * on the labels is made again under the new list). Undefined when no list is read.
   */
  trust?: (page: ReceivedPage) => Promise<boolean>;
  /** Contacts: the field list in force (what the page at hand is read under), when one is read. */
  fields(): readonly LabelledField[] | undefined;
  /**
   * Appends a page durably, the one way a page of one cursor is delivered (runner.ts, and contacts
   * sync's refresh): its bytes written after the committed position (a file: at the committed
   * offset, fsynced), then the position after it (its cursor, the identities delivered, and
   * `seal` when given) committed in one atomic state write. Returns that position.
   */
  append(page: ReceivedPage, step: Step, seal?: Seal): Promise<Position>;
}

/** How a run differs by shape: one cursor, or one lane per email type. */
interface RunShape {
  /** Multi-type: the types' outcomes in the summary, a lane per type in the position, no --defer-commit. */
  types?: Record<string, TypeOutcome>;
}

/** The summary of a run that has not started: failed until its loop says otherwise. */
function firstSummary(plan: RunPlan, shape: RunShape, runId: string | null, defer: boolean): ExportSummary {
  return {
    status: 'failed',
    rows: 0,
    skipped: 0,
    pages: 0,
    bytes: 0,
    elapsedMs: 0,
    stateKey: plan.key,
    runId,
    moreRemains: true,
    output: plan.path ?? 'stdout',
    pending: defer,
    cutBytes: 0,
    ...(shape.types !== undefined ? { types: shape.types } : {}),
    ...(plan.target.window ? { window: plan.target.window } : {}),
    ...(plan.fieldChanges ? { fieldChanges: plan.fieldChanges } : {}),
    ...(plan.layout ? { extra: { values: 0, rows: 0, members: [] } } : {}),
    ...resumedAt(plan),
  };
}

/** The row a run continues from when the last run of its state did not complete (Ctrl-C, a kill, a failure). */
function resumedAt(plan: RunPlan): { resumedAt?: number } {
  const last = plan.prior?.runs.at(-1);
  const unfinished = last?.status === 'interrupted' || last?.status === 'failed' || last?.status === 'stopped';
  if (!plan.prior || plan.restarted || !unfinished) return {};
  return { resumedAt: plan.prior.current.rows + 1 };
}

/** --full into a file: the empty file is recorded before the file is emptied, so a crash cannot mix old and new. */
async function startAfresh(log: CommitLog, plan: RunPlan, sink: FileSink, multi: boolean): Promise<void> {
  await log.save({
    ...plan.start,
    cursor: null,
    cursorAt: null,
    seen: [],
    rows: 0,
    pages: 0,
    ...(multi ? { lanes: {} } : {}),
    output: sink.record(0),
  });
  await sink.empty();
}

/**
 * Plans a run (lock, state), opens its output, runs `loop`, and closes the run whatever
 * happened: status and time in the summary, the manifest saved, file and locks released, the
 * reporter told. `loop` sets the summary's status (complete or stopped) when it returns.
 */
export async function withExportRun(
  deps: ExportDeps,
  opts: ExportRunOptions,
  reporter: ExportReporter,
  shape: RunShape,
  loop: (run: ExportRun) => Promise<void>,
): Promise<ExportSummary> {
  const crash = opts.crash ?? NO_CRASH;
  const started = deps.clock.now();
  if (opts.out !== undefined) assertParentDirectory('output file', opts.out);
  const http = await deps.http();
  const plan = await planExport(deps, http, opts);
  const multi = shape.types !== undefined;
  const defer = !multi && opts.deferCommit;
  const runId = opts.runId ?? randomUUID();
  const summary = firstSummary(plan, shape, plan.key ? runId : null, defer);
  const log = new CommitLog(plan, {
    runId,
    startedMs: started,
    output: summary.output,
    firstCursor: multi ? null : plan.start.cursor,
    defer,
    now: () => deps.clock.now(),
    crash,
    redact: (text) => deps.notices.redact(text),
  });
  const ended = new AbortController();
  const signal = AbortSignal.any([deps.signal, ended.signal]);
  let sink: FileSink | undefined;
  try {
    sink = plan.path !== undefined ? await openOutput(deps.stateDir.path, plan, plan.path) : undefined;
    if (sink) {
      summary.cutBytes = sink.cut;
      log.manifest.startOffset = sink.offset;
    }
    const fields = await RunFields.open(deps, http, opts, plan);
    const { format } = fields;
    const output = new PageOutput({ stdout: deps.stdout, sink, format, compress: opts.compress, log, plan, crash });
    // No state yet: none to record the emptying in first, and a run that fails before its first page leaves none.
    if (sink && plan.fileStart?.mode === 'replace')
      await (plan.prior ? startAfresh(log, plan, sink, multi) : sink.empty());
    const start: Position = {
      ...plan.start,
      format: opts.format,
      csv: plan.layout,
      output: output.record(),
      ...(multi ? { lanes: { ...plan.start.lanes } } : {}),
    };
    const label = `export ${opts.kind}${opts.emailType ? ` ${opts.emailType}` : ''}`;
    const run = { plan, summary, log, output, start, label, crash, signal, stop: () => ended.abort() };
    await loop({
      ...run,
      pages: fetcher(http, opts, plan, fields),
      append: appender(deps, run, reporter, fields),
      ...(fields.watched ? { trust: (page: ReceivedPage) => fields.trust(summary, summary.pages + 1, page) } : {}),
      fields: () => fields.fields,
    });
    await sink?.finish();
    log.manifest.status = defer ? 'pending' : summary.status === 'complete' ? 'complete' : 'stopped';
    return summary;
  } catch (err) {
    summary.status = interruptedBy(deps.signal) ? 'interrupted' : 'failed';
    log.manifest.status = summary.status;
    log.manifest.error = deps.notices.redact(err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    ended.abort();
    summary.elapsedMs = deps.clock.now() - started;
    await log.close(summary, deps.clock.now());
    if (sink && !log.committedOnce && summary.status !== 'complete' && summary.status !== 'stopped')
      await discardUnusedOutput(deps.stateDir.path, plan, sink);
    await sink?.close();
    await plan.lock?.release();
    reporter.done(summary, { newState: plan.key !== null && plan.prior === undefined });
  }
}

/**
 * The run's page fetcher: rows formatted into pooled blocks (reused from page to page) under the
 * format and the field names in force when the page is asked for, a refused saved cursor said so.
 */
function fetcher(http: HttpClient, opts: ExportRunOptions, plan: RunPlan, fields: RunFields): ExportRun['pages'] {
  const pool = new BlockPool();
  return (target, label) => (cursor, limit, skip, signal) => {
    const receive = receiver(fields.format, { kind: opts.kind, cursor, skip, pool, limit, label, names: fields.names });
    return fetchPage(http, target, cursor, limit, receive, signal).catch((err) =>
      Promise.reject(cursorRejected(err, plan, { cursor })),
    );
  };
}

/** The run's `append`, from its committed position on: each page written, then committed (not when it changed nothing). */
function appender(
  deps: Pick<ExportDeps, 'clock' | 'signal' | 'notices'>,
  run: Pick<ExportRun, 'summary' | 'log' | 'output' | 'crash' | 'label' | 'start'>,
  reporter: ExportReporter,
  fields: RunFields,
): ExportRun['append'] {
  let pos = run.start;
  return async (page, step, seal) => {
    const { summary, log, output, crash } = run;
    const n = summary.pages + 1;
    crash.at('after-fetch', n, true);
    for (const warning of repeatWarnings(run.label, page, step, n)) deps.notices.warn(warning);
    const out = await output.prepare([{ pieces: page.pieces, size: page.bytes }]);
    deps.signal.throwIfAborted();
    const bytes = await output.write(out, pos, n);
    page.release();
    // (Identities of an earlier cnv's form met again are saved in the form of now.)
    const changed =
      page.fresh > 0 ||
      page.nextCursor !== pos.cursor ||
      step.seen.length !== pos.seen.length ||
      page.renamed !== undefined ||
      log.needsFirstSave();
    // A seal is of the bytes it was made with: a page appended without one leaves none.
    const { seal: _was, ...kept } = pos;
    const next = nextPosition(pos, page, step, deps.clock.now());
    pos = { ...kept, ...fields.position(), ...next, output: output.record(bytes), ...(seal ? { seal } : {}) };
    summary.rows += page.fresh;
    summary.skipped += page.hits.size + page.repeated;
    addExtra(summary, page.extra);
    summary.pages = n;
    summary.bytes += out.size;
    log.progress(summary, pos.cursor);
    if (changed) await log.commit(pos, n);
    output.committed(bytes);
    reporter.page(summary.rows, n);
    return pos;
  };
}
