import { randomUUID } from 'node:crypto';
import { interruptedBy } from '../errors.js';
import { CommitLog } from './commit-log.js';
import { NO_CRASH, type CrashHook } from './crash-points.js';
import type { ExportDeps } from './export-deps.js';
import type { FileSink } from './file-sink.js';
import { fetchPage, type ExportTarget } from './kinds.js';
import { BlockPool, pageFormat } from './page-format.js';
import { discardUnusedOutput, openOutput, PageOutput } from './page-output.js';
import { receiver } from './page-receiver.js';
import { cursorRejected, type FetchPage } from './page-source.js';
import { planExport } from './plan.js';
import { assertParentDirectory } from '../files/file-streams.js';
import type { ExportRunOptions, RunPlan } from './export-run-options.js';
import type { ExportReporter, ExportSummary, TypeOutcome } from './run-summary.js';
import type { Position } from './state.js';

/** One run as its loop sees it: what it writes to, what it commits to, and how it fetches. */
export interface ExportRun {
  plan: RunPlan;
  summary: ExportSummary;
  log: CommitLog;
  output: PageOutput;
  /** The committed position the run starts from. */
  start: Position;
  crash: CrashHook;
  /** The run's signal (the deps'), and the end of the run: requests still in flight then are ended. */
  signal: AbortSignal;
  /** Ends the run's requests in flight now (a failure that stops every type of a multi-type run). */
  stop(): void;
  /** A page fetcher for `target`, its rows formatted into the run's pooled blocks. */
  pages(target: ExportTarget, label: string): FetchPage;
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
    const format = await pageFormat(
      opts.kind,
      opts.format,
      plan.layout,
      opts.bom,
      opts.nullAs,
      opts.excelSafe,
      plan.fieldKeys,
    );
    const output = new PageOutput(deps.stdout, sink, format, opts.compress, log, plan, crash);
    if (sink && plan.fileStart?.mode === 'replace') await startAfresh(log, plan, sink, multi);
    const start: Position = {
      ...plan.start,
      format: opts.format,
      csv: plan.layout,
      output: output.record(),
      ...(multi ? { lanes: { ...plan.start.lanes } } : {}),
    };
    const pool = new BlockPool();
    const pages =
      (target: ExportTarget, label: string): FetchPage =>
      (cursor, limit, skip, pageSignal) =>
        fetchPage(http, target, cursor, limit, receiver(opts.kind, format, skip, pool, limit, label), pageSignal).catch(
          (err) => Promise.reject(cursorRejected(err, plan, { cursor })),
        );
    await loop({ plan, summary, log, output, start, crash, signal, stop: () => ended.abort(), pages });
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
