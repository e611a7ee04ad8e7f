import type { EmailEventType } from '../endpoints/exports.js';
import { ApiError, CliError, ResponseShapeError, TransientError } from '../errors.js';
import type { Notices } from '../output/notices.js';
import { plural } from '../output/wording.js';
import type { ExportDeps } from './export-deps.js';
import { withExportRun, type ExportRun } from './export-run.js';
import { GroupCommit } from './group-commit.js';
import { nextPosition, repeatWarnings } from './next-position.js';
import { pageSource, stuckCursor } from './page-source.js';
import type { ExportReporter, ExportSummary, TypeOutcome } from './run-summary.js';
import type { ExportRunOptions } from './export-run-options.js';
import type { LanePosition } from './export-state.js';

/**
 * Several email event types into one output (`--type all` or a list). The API takes one type
 * per call, so each type is a lane with its own cursor, fetched concurrently (the HTTP client's
 * one rate limiter paces them all). Pages of every lane go through one sink, one at a time: a
 * page is written at the committed offset and fsynced, then ONE state write records the file's
 * new length and that lane's new cursor together (group-commit.ts), so every row of every type
 * lands exactly once across crashes and resumed runs. A lane the API fails (after the client's
 * retries) stops alone, its committed pages kept; the others go on. A local failure (file, lock)
 * stops them all.
 */
export async function runEmailTypes(
  deps: ExportDeps,
  opts: ExportRunOptions,
  reporter: ExportReporter,
): Promise<ExportSummary> {
  const types = opts.emailTypes!;
  const outcomes: Record<string, TypeOutcome> = Object.fromEntries(
    types.map((t) => [t, { status: 'failed', rows: 0, pages: 0 }]),
  );
  return withExportRun(deps, opts, reporter, { types: outcomes }, async (run) => {
    const lanes: Lanes = {
      deps,
      opts,
      run,
      commits: new GroupCommit(run, reporter, run.start),
      outcomes,
      failures: new Map(),
    };
    await Promise.all(types.map((type) => runLane(lanes, type)));
    if (deps.signal.aborted) throw deps.signal.reason;
    if (lanes.fatal !== undefined) throw lanes.fatal;
    const failed = types.filter((t) => outcomes[t].status !== 'complete');
    run.summary.moreRemains = failed.length > 0;
    if (failed.length > 0) throw typesFailed(types, outcomes, lanes.failures.get(failed[0]));
    run.summary.status = 'complete';
  });
}

/** What the lanes of one run share. */
interface Lanes {
  deps: ExportDeps;
  opts: ExportRunOptions;
  run: ExportRun;
  commits: GroupCommit;
  outcomes: Record<string, TypeOutcome>;
  /** Each type the API failed, and why (the others went on). */
  failures: Map<string, unknown>;
  /** The failure that stops every lane (a file, a lock, an interruption). */
  fatal?: unknown;
}

/** One type's pages, from its lane's committed cursor, each handed to the group commit. */
async function runLane(lanes: Lanes, type: EmailEventType): Promise<void> {
  const { deps, run, commits } = lanes;
  const label = `export email-events ${type}`;
  const outcome = lanes.outcomes[type];
  let lane: LanePosition = commits.position.lanes?.[type] ?? {
    cursor: null,
    cursorAt: null,
    seen: [],
    rows: 0,
    pages: 0,
  };
  // This type's next page is fetched while this one waits for its commit (exports are reads).
  const source = pageSource({
    fetch: run.pages({ kind: 'email-events', emailType: type }, label),
    start: lane,
    label,
    signal: run.signal,
    limit: () => lanes.opts.limit,
    prefetch: () => true,
    until: () => lanes.fatal !== undefined,
    stuck: (n) => stuckCursor(label, n),
  });
  try {
    for await (const { page, step } of source) {
      for (const warning of repeatWarnings(label, page, step)) deps.notices.warn(warning);
      const next = nextPosition(lane, page, step, deps.clock.now());
      try {
        await commits.commit({ type, page, lane, next });
      } finally {
        page.release();
      }
      outcome.rows += page.fresh;
      outcome.pages += 1;
      lane = next;
      if (step.last) return void (outcome.status = 'complete');
    }
    outcome.status = 'stopped';
  } catch (err) {
    outcome.status = 'failed';
    outcome.error = deps.notices.redact(err instanceof Error ? err.message : String(err));
    // The API failed this type (after the client's retries): the others go on. Anything else stops them all.
    if (!laneOnly(err) || deps.signal.aborted || lanes.fatal !== undefined) {
      lanes.fatal ??= err;
      run.stop();
      if (lanes.fatal !== err) outcome.status = 'stopped';
    } else lanes.failures.set(type, err);
  }
}

/** The run's reporter, with a line per type on stderr before the summary (the JSON summary has them in `types`). */
export function withTypeLines(notices: Pick<Notices, 'info'>, reporter: ExportReporter): ExportReporter {
  return {
    page: (rows, pages) => reporter.page(rows, pages),
    done(summary, run) {
      for (const [type, o] of Object.entries(summary.types ?? {})) {
        notices.info(
          `  ${type}: ${o.status}, ${plural(o.rows, 'row')} in ${plural(o.pages, 'page')}${o.error ? ` (${o.error})` : ''}`,
        );
      }
      reporter.done(summary, run);
    },
  };
}

/** Failures of one type's requests (the API, the network after retries, an off-contract answer): the other types go on. */
function laneOnly(err: unknown): boolean {
  if (err instanceof TransientError) return err.code !== 'lock_lost';
  return err instanceof ApiError || err instanceof ResponseShapeError;
}

/**
 * The run's error when some types failed and the others completed: it names both, and exits
 * with the code of the first failed type (7 when it failed transiently: try again later).
 */
export function typesFailed(
  types: readonly EmailEventType[],
  outcomes: Record<string, TypeOutcome>,
  first: unknown,
): CliError {
  const failed = types.filter((t) => outcomes[t].status !== 'complete');
  const completed = types.filter((t) => outcomes[t].status === 'complete');
  const reasons = failed.map((t) => `${t} (${outcomes[t].error ?? outcomes[t].status})`).join('; ');
  return new CliError(
    `export email-events: ${failed.length} of ${types.length} types did not complete: ${reasons}; completed: ` +
      `${completed.length > 0 ? completed.join(', ') : 'none'}`,
    {
      exitCode: first instanceof CliError ? first.exitCode : 7,
      code: first instanceof CliError ? first.code : 'types_failed',
      hint:
        'everything delivered is committed, for every type: ' +
        'run the same command again to continue each type from its own cursor',
    },
  );
}
