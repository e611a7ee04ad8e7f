import { ExitCode, interruptedBy } from '../errors.js';
import { duration, hasRate } from '../output/wording.js';
import { ROW_STATUSES, SUCCESS_STATUSES, type RowResult, type RowStatus } from './types.js';

/** Running counts of a batch run. */
export class BatchCounts {
  rows = 0;
  readonly byStatus = new Map<RowStatus, number>();
  /** Successful rows carried over from --resume-from-report (also counted as succeeded). */
  earlier = 0;

  add(result: RowResult): void {
    this.rows++;
    this.byStatus.set(result.status, (this.byStatus.get(result.status) ?? 0) + 1);
  }

  count(status: RowStatus): number {
    return this.byStatus.get(status) ?? 0;
  }

  get succeeded(): number {
    let n = 0;
    for (const [status, count] of this.byStatus) if (SUCCESS_STATUSES.has(status)) n += count;
    return n;
  }

  /**
   * The rows the run itself answered for: not those it never sent (skipped), nor those that
   * needed no request (invalid, done in an earlier run). What a rate counts: an interrupted run's
   * skipped rows would otherwise push its rows/s past the rate limit.
   */
  get handled(): number {
    return this.rows - this.count('skipped') - this.count('invalid') - this.earlier;
  }

  /** 0 when every row succeeded (or, in a dry run, was valid); 6 when some failed, were invalid or were held. */
  exitCode(): number {
    return this.count('failed') + this.count('invalid') + this.count('held') > 0 ? ExitCode.partial : ExitCode.ok;
  }
}

interface SummaryInfo {
  elapsedMs: number;
  dryRun: boolean;
  report?: string;
  /** Set when the run stopped before the end. */
  stopped?: string;
}

/** The summary as data (printed as JSON with --json). */
export function summaryData(counts: BatchCounts, info: SummaryInfo): Record<string, unknown> {
  const seconds = info.elapsedMs / 1000;
  return {
    rows: counts.rows,
    succeeded: counts.succeeded,
    failed: counts.count('failed'),
    invalid: counts.count('invalid'),
    skipped: counts.count('skipped'),
    ...(info.dryRun ? { valid: counts.count('valid') } : {}),
    byStatus: Object.fromEntries(ROW_STATUSES.filter((s) => counts.count(s) > 0).map((s) => [s, counts.count(s)])),
    doneInEarlierRun: counts.earlier,
    elapsedMs: Math.round(info.elapsedMs),
    rowsPerSecond: seconds > 0 ? Math.round(counts.handled / seconds) : counts.handled,
    dryRun: info.dryRun,
    report: info.report ?? null,
    stopped: info.stopped ?? null,
  };
}

/**
 * One line: `2500 rows: 2490 succeeded (added 2490), 5 failed, 5 invalid, 0 skipped in 3.2 s (781 rows/s)`.
 * `outcome`, when given, says what the rows that did not fail came to in place of `2490 succeeded (...)`.
 */
export function summaryLine(counts: BatchCounts, info: SummaryInfo, outcome?: string): string {
  // Plain digits (no grouping): these lines are grepped by scripts.
  const n = (v: number) => String(v);
  const rows = `${counts.rows} ${counts.rows === 1 ? 'row' : 'rows'}`;
  const detail = ROW_STATUSES.filter((s) => SUCCESS_STATUSES.has(s) && counts.count(s) > 0).map(
    (s) => `${s} ${n(counts.count(s))}`,
  );
  const ok =
    outcome ??
    (info.dryRun
      ? `${n(counts.count('valid'))} valid`
      : `${n(counts.succeeded)} succeeded${detail.length ? ` (${detail.join(', ')})` : ''}`);
  const earlier = counts.earlier > 0 ? `, ${n(counts.earlier)} of them done in an earlier run` : '';
  const head = info.dryRun ? 'dry run, nothing sent: ' : info.stopped ? 'stopped early: ' : '';
  const report = info.report && info.report !== '-' ? `; report: ${info.report}` : '';
  const rate = hasRate(counts.handled, info.elapsedMs)
    ? ` (${Math.round(counts.handled / (info.elapsedMs / 1000))} rows/s)`
    : '';
  const others = (['failed', 'invalid', 'skipped'] as const).map((s) => `${n(counts.count(s))} ${s}`).join(', ');
  return `${head}${rows}: ${ok}${earlier}, ${others} in ${duration(info.elapsedMs)}${rate}${report}`;
}

/**
 * What --quiet still says when rows failed (exit 6): how many, and where their results are,
 * since a quiet run that exits 6 with no word leaves the operator guessing.
 */
export function quietFailureLine(counts: BatchCounts, info: SummaryInfo): string {
  const bad = counts.count('failed') + counts.count('invalid');
  const where =
    info.report === '-'
      ? 'the report is on stdout'
      : info.report
        ? `report: ${info.report}`
        : "run again without --quiet to see them, or with --report FILE to keep every row's result";
  return `${bad} of ${counts.rows} ${counts.rows === 1 ? 'row' : 'rows'} failed or were invalid; ${where}`;
}

/** `status` of the --summary-json file: complete, partial (exit 6), interrupted or failed. */
export function batchStatus(run: { signal: AbortSignal }, stoppedBy: unknown, exitCode: number): { status: string } {
  if (stoppedBy !== undefined) return { status: interruptedBy(run.signal) ? 'interrupted' : 'failed' };
  return { status: exitCode === ExitCode.partial ? 'partial' : 'complete' };
}
