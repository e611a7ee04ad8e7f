import { ExitCode } from '../errors.js';
import { BatchCounts } from '../batch/summary.js';
import { ROW_STATUSES } from '../batch/types.js';
import { duration } from '../output/wording.js';
import { metricLine, streamMetrics, streamSummary, type StreamTotals } from './target-metrics.js';
import type { RunMode } from '../batch/batch-run-options.js';
import type { Clock } from '../clock.js';
import type { Notices } from '../output/notices.js';
import type { LaneMirror } from './lane-mirror.js';
import type { StateGate } from './state-gate.js';
import type { StreamLane } from './stream-lane.js';
import type { TargetConfig } from './target-config.js';
import type { TargetReport } from './target-report.js';

/** A lane that stopped: the run's own reason to stop the others (the lane's error is its engine's). */
export class LaneStopped extends Error {}

/** What the end of a run reads of it (src/target/target-run.ts). */
interface TargetRun {
  lanes: ReadonlyMap<string, StreamLane<object>>;
  mirrors: ReadonlyMap<string, LaneMirror>;
  /** Streams read and not sent, and their kind. */
  ignored: ReadonlyMap<string, string>;
  records: ReadonlyMap<string, number>;
  replayed: ReadonlyMap<string, number>;
  /** The lanes' signal: SIGTERM, or a lane that stopped. */
  signal: AbortSignal;
  gate: StateGate;
  mode: RunMode;
  started: number;
  report: TargetReport | undefined;
  statesRead: number;
  deps: { signal: AbortSignal; clock: Clock; notices: Notices };
  opts: { config: TargetConfig };
}

/**
 * The end of a run, whatever ended it (the input, SIGTERM, an error): the records marked deleted
 * removed (unless stopped), every lane's engine ended (in flight settled), the states they cover
 * printed, what failed kept on disk, each ledger compacted and released, then the report's and
 * stderr's summary (METRIC lines, a line per stream, the run's), and the exit code.
 */
export async function windDown(run: TargetRun): Promise<{ stoppedBy: unknown; exitCode: number }> {
  let stoppedBy: unknown;
  // The first reason, a lane's own error before the run's LaneStopped that it made the others see.
  const keep = (err: unknown) => {
    if (err === undefined) return;
    if (stoppedBy === undefined || (stoppedBy instanceof LaneStopped && !(err instanceof LaneStopped))) stoppedBy = err;
  };
  if (!run.signal.aborted) for (const mirror of run.mirrors.values()) await mirror.deletions().catch(keep);
  for (const lane of run.lanes.values()) keep(await lane.end().catch((err: unknown) => err));
  // The last outcomes' records on disk, then the states they cover.
  await Promise.all([...run.lanes.values()].map((lane) => lane.persist())).catch(keep);
  run.gate.check();
  await run.gate.drain().catch(keep);
  const status = stoppedBy !== undefined ? (run.deps.signal.aborted ? 'interrupted' : 'failed') : 'complete';
  const clock = run.deps.clock;
  for (const lane of run.lanes.values()) {
    const counts = Object.fromEntries(
      ROW_STATUSES.filter((s) => lane.counts.count(s) > 0).map((s) => [s, lane.counts.count(s)]),
    );
    const info = { startedAt: iso(run.started), finishedAt: iso(clock.now()), status, counts };
    await lane.sink.ledger.finish(info, clock).catch(keep);
    await lane.sink.close?.().catch(keep);
  }
  const exitCode = stoppedBy === undefined ? exitCodeOf(run) : ExitCode.ok;
  await summarize(run, exitCode).catch(keep);
  return { stoppedBy, exitCode };
}

const iso = (ms: number) => new Date(ms).toISOString();

function totalsOf(run: TargetRun): StreamTotals[] {
  const totals: StreamTotals[] = [];
  for (const lane of run.lanes.values())
    totals.push({
      stream: lane.stream,
      kind: lane.sink.kind,
      records: run.records.get(lane.stream) ?? 0,
      counts: lane.counts,
      kept: lane.kept,
      replayed: run.replayed.get(lane.stream) ?? 0,
    });
  for (const [stream, kind] of run.ignored)
    totals.push({ stream, kind, records: run.records.get(stream) ?? 0, kept: 0, replayed: 0 });
  return totals;
}

/** Every lane's counts together. */
function allCounts(run: TargetRun): BatchCounts {
  const all = new BatchCounts();
  for (const lane of run.lanes.values()) {
    all.rows += lane.counts.rows;
    for (const [status, n] of lane.counts.byStatus) all.byStatus.set(status, (all.byStatus.get(status) ?? 0) + n);
  }
  return all;
}

/** 6: removals held, or more rows failed than max_failed_rows / max_failed_ratio allow; 9: a plan with changes; else 0. */
function exitCodeOf(run: TargetRun): number {
  const all = allCounts(run);
  const { maxFailedRows, maxFailedRatio } = run.opts.config;
  if (all.count('held') > 0) return ExitCode.partial;
  const bad = all.count('failed') + all.count('invalid');
  const over =
    maxFailedRows !== undefined && bad > maxFailedRows
      ? `more than max_failed_rows ${maxFailedRows}`
      : maxFailedRatio !== undefined && all.rows > 0 && bad / all.rows > maxFailedRatio
        ? `more than max_failed_ratio ${maxFailedRatio} of ${all.rows}`
        : undefined;
  if (over) {
    run.deps.notices.warn(
      `${bad} rows failed or were invalid, ${over}: exit 6 (the states their run covered were printed; failed rows are kept for the next run)`,
    );
    return ExitCode.partial;
  }
  if (run.mode === 'plan' && all.count('valid') > 0) return ExitCode.pendingChanges;
  return ExitCode.ok;
}

async function summarize(run: TargetRun, exitCode: number): Promise<void> {
  const totals = totalsOf(run);
  const { notices } = run.deps;
  const elapsedMs = run.deps.clock.now() - run.started;
  for (const t of totals) for (const line of streamMetrics(t)) notices.info(line);
  notices.info(metricLine('timer', 'job_duration', Number((elapsedMs / 1000).toFixed(3)), { job_type: 'target' }));
  for (const t of totals) notices.info(streamSummary(t));
  const held = run.gate.waiting;
  const states =
    run.mode === 'plan'
      ? 'plan: nothing sent, no state printed'
      : `${run.gate.printed} of ${run.statesRead} states printed${held > 0 ? ` (${held} held back: a record before them has no outcome yet; the next run sends it again)` : ''}`;
  const report = run.opts.config.reportPath ? `; report: ${run.opts.config.reportPath}` : '';
  notices.info(
    `target: ${totals.length} ${totals.length === 1 ? 'stream' : 'streams'}, ${states} in ${duration(elapsedMs)}${report}`,
  );
  if (!run.report) return;
  const streams = Object.fromEntries(
    totals.map((t) => [
      t.stream,
      {
        kind: t.kind,
        records: t.records,
        byStatus: t.counts ? Object.fromEntries(t.counts.byStatus) : {},
        kept: t.kept,
        replayed: t.replayed,
      },
    ]),
  );
  await run.report.write({
    type: 'summary',
    streams,
    statesRead: run.statesRead,
    statesPrinted: run.gate.printed,
    elapsedMs,
    exitCode,
  });
  await run.report.close();
}
