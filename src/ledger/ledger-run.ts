import type { BatchDeps } from '../batch/batch-deps.js';
import type { Clock } from '../clock.js';
import { checkFile, closeFile, openFile, type OpenedFile } from '../batch/file-open.js';
import { sendFile, type FileBatchSpec, type FileRowsSpec } from '../batch/file-run.js';
import type { BatchCounts } from '../batch/summary.js';
import type { RunMode } from '../batch/batch-run-options.js';
import { CliError, ExitCode, interruptedBy } from '../errors.js';
import type { CommandResult } from '../output/render.js';
import { Ledger, type LedgerDeps } from './ledger.js';
import type { LedgerJob } from './ledger-job.js';
import { planCost, planLine, type LedgerPlan, type PlanCounts } from './ledger-plan.js';
import { checkKeyColumn } from './key-column.js';
import { removalPass, type RemovalOptions } from './removals.js';
import { ledgerSummary, trackedRows, type LedgerTally, type LedgerTrackOptions } from './tracked-rows.js';

/** A ledger job's run, beyond the file run it decides (docs/ledger.md). */
interface LedgerRunOptions<P> {
  job: LedgerJob;
  /** How a row is keyed and decided (the ledger and the run mode are added here). */
  track: Omit<LedgerTrackOptions<P>, 'ledger' | 'mode'>;
  /** A mirror's removals (audience sync), after the file was read to its end. */
  removals?: Omit<RemovalOptions, 'ledger' | 'tally' | 'notices' | 'sending' | 'onRemoval'>;
  /** The column a flag names as the key (--key-column, --id-column): a CSV header must have it. */
  keyColumn?: { flag: string; column: string };
  /** --exit-code: a run that sent (or, planned, would send) anything exits 9. */
  exitCode: boolean;
  /** --plan: where the plan goes (nothing is sent). */
  plan?: LedgerPlan;
}

/**
 * A file run against a job's ledger: the ledger opened (locked, checked whole) before the file,
 * each row decided against it and each outcome recorded in it as it comes, a mirror's removals
 * once the file was read to its end, then the journal compacted into a sealed base. A run that
 * stops early keeps what it recorded: the next run sends only the rest.
 */
export async function runLedgerJob<P extends object>(
  deps: { batch: BatchDeps; ledger: LedgerDeps },
  spec: FileBatchSpec<P> | { mode: RunMode; make(): Promise<FileBatchSpec<P>> },
  opts: LedgerRunOptions<P>,
): Promise<CommandResult> {
  const mode = 'make' in spec ? spec.mode : spec.options.mode;
  const started = deps.ledger.clock.now();
  // The lock first: a second run of the job stops before it reads anything (a spec may read the field definitions).
  const ledger = await Ledger.open(deps.ledger, opts.job, mode === 'send');
  let opened: OpenedFile | undefined;
  try {
    if ('make' in spec) spec = await spec.make();
    opened = await openFile(deps.batch, spec);
    if (opts.keyColumn) checkKeyColumn(opened, opts.keyColumn);
    await checkFile(deps.batch, opened);
  } catch (err) {
    // Refused before anything was sent: nothing to record.
    if (opened) await closeFile(opened).catch(() => {});
    await ledger.close();
    throw err;
  }
  const plan = opts.plan;
  const { rows, tally } = trackedRows(spec, {
    ...opts.track,
    ledger,
    mode,
    onSend: plan && ((r) => plan.send(r.line, r.key, r.identifier, r.kind)),
  });
  const pass = opts.removals && {
    after: removalPass({
      ...opts.removals,
      ledger,
      tally,
      notices: deps.batch.notices,
      sending: mode === 'send',
      onRemoval: plan && ((removal, held) => plan.remove(removal, held)),
    }),
  };
  let counts: BatchCounts | undefined;
  let result: CommandResult;
  const ending = { signal: deps.batch.signal, clock: deps.ledger.clock };
  try {
    result = await sendFile(deps.batch, opened, {
      ...rows,
      ...pass,
      summary: summaryOf(ledger, tally, opts, spec.options.chunkSize, (c) => (counts = c)),
    });
  } catch (err) {
    await endLedgerRun(ledger, { started, counts: tallyCounts(tally), failure: err }, ending).catch(() => {});
    throw anotherRun(err);
  }
  await endLedgerRun(ledger, { started, counts: tallyCounts(tally), exitCode: result.exitCode }, ending);
  if (plan) await plan.end(planCounts(tally, counts, spec.options.chunkSize));
  return result;
}

/**
 * A run's end in its job's ledger: its record (started, finished, how it ended, its counts), then
 * the journal compacted into a new sealed base. A run that only read the ledger writes nothing.
 */
export async function endLedgerRun(
  ledger: Ledger,
  run: { started: number; counts: Record<string, number>; failure?: unknown; exitCode?: number },
  deps: { signal: AbortSignal; clock: Clock },
): Promise<void> {
  const status =
    run.failure !== undefined
      ? interruptedBy(deps.signal)
        ? 'interrupted'
        : 'failed'
      : run.exitCode === ExitCode.partial
        ? 'partial'
        : 'complete';
  const iso = (ms: number) => new Date(ms).toISOString();
  const { clock } = deps;
  await ledger.finish({ startedAt: iso(run.started), finishedAt: iso(clock.now()), status, counts: run.counts }, clock);
}

/** What a membership, records or events run records of its counts. */
function tallyCounts(tally: LedgerTally): Record<string, number> {
  const { added, updated, unchanged, removed, held } = tally;
  return { added, updated, unchanged, removed, held };
}

/** The file run's summary hooks: the ledger's line and member, a plan's first line, and the exit code (6 held, 9 --exit-code). */
function summaryOf<P>(
  ledger: Ledger,
  tally: LedgerTally,
  opts: LedgerRunOptions<P>,
  chunkSize: number,
  seen: (counts: BatchCounts) => void,
): FileRowsSpec<P>['summary'] {
  return {
    first: opts.plan
      ? (counts, elapsedMs) => {
          seen(counts);
          const plan = planLine(planCounts(tally, counts, chunkSize)).slice('Plan: '.length);
          return `plan: ${plan} Nothing sent (${counts.rows} rows in ${elapsedMs} ms)`;
        }
      : undefined,
    line: (counts) => ledgerSummary(ledger, tally, counts).line,
    data: (counts) => {
      seen(counts);
      return { ledger: ledgerSummary(ledger, tally, counts).data };
    },
    exitCode: (code) => {
      if (tally.held > 0) return ExitCode.partial;
      const changes = tally.toSend + tally.removed;
      return opts.exitCode && changes > 0 ? ExitCode.pendingChanges : code;
    },
  };
}

function planCounts(tally: LedgerTally, counts: BatchCounts | undefined, chunkSize: number): PlanCounts {
  return {
    add: tally.added,
    update: tally.updated,
    remove: tally.removed,
    held: tally.held,
    unchanged: tally.unchanged,
    invalid: counts?.count('invalid') ?? 0,
    ...planCost(tally.toSend, chunkSize, tally.removed),
  };
}

/** A run that stopped: the way on is the same command again (the ledger knows what was done), not a report to resume from. */
function anotherRun(err: unknown): unknown {
  if (!(err instanceof CliError) || !err.hint?.includes('--resume-from-report')) return err;
  return new CliError(err.message, {
    exitCode: err.exitCode,
    code: err.code,
    hint: 'run the same command again: the ledger holds every outcome recorded so far, so only the rest is sent',
    cause: err,
  });
}
