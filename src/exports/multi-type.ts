import type { EmailEventType } from '../api/exports.js';
import type { Context } from '../context.js';
import { ApiError, CliError, ResponseShapeError, TransientError } from '../errors.js';
import { withExportRun } from './export-run.js';
import type { ReceivedPage } from './page-receiver.js';
import { pageSource, stuckCursor } from './page-source.js';
import type { ExportRunOptions } from './plan.js';
import type { ExportReporter, ExportSummary, TypeOutcome } from './report.js';
import type { LanePosition } from './state.js';

/**
 * Several email event types into one output (`--type all` or a list). The API takes one type
 * per call, so each type is a lane with its own cursor, fetched concurrently (the HTTP client's
 * one rate limiter paces them all). Pages of every lane go through one sink, one at a time: a
 * page is written at the committed offset and fsynced, then ONE state write records the file's
 * new length and that lane's new cursor together, so every row of every type lands exactly once
 * across crashes and resumed runs. A lane the API fails (after the client's retries) stops
 * alone, its committed pages kept; the others go on. A local failure (file, lock) stops them all.
 */
export async function runEmailTypes(ctx: Context, opts: ExportRunOptions, reporter: ExportReporter): Promise<ExportSummary> {
  const types = opts.emailTypes!;
  const outcomes: Record<string, TypeOutcome> = Object.fromEntries(types.map((t) => [t, { status: 'failed', rows: 0, pages: 0 }]));
  return withExportRun(ctx, opts, reporter, { types: outcomes }, async ({ summary, log, output, start, crash, signal, stop, pages }) => {
    let pos = start;
    let fatal: unknown;
    const failures = new Map<string, unknown>();

    /**
     * Group commit: the pages that arrived while the previous commit ran are written together
     * at the committed offset (each page its own gzip member), fsynced once, and committed by
     * one state write holding the file's new length and each of their types' new cursors.
     */
    const commitPages = async (batch: readonly Queued[]): Promise<void> => {
      const first = summary.pages + 1;
      const last = summary.pages + batch.length;
      const out = await output.prepare(batch.map((q) => ({ pieces: q.page.pieces, size: q.page.bytes })));
      for (let n = first; n <= last; n++) crash.at('after-fetch', n, true);
      signal.throwIfAborted();
      const bytes = await output.write(out, pos, crash.page(first, last));
      let changed = log.needsFirstSave();
      const lanes = { ...pos.lanes };
      let fresh = 0;
      for (const { type, page, lane, next } of batch) {
        changed ||= page.fresh > 0 || next.cursor !== lane.cursor || next.seen.length !== lane.seen.length;
        lanes[type] = next;
        fresh += page.fresh;
        summary.skipped += page.hits.size + page.repeated;
      }
      pos = { ...pos, lanes, output: output.record(bytes), rows: pos.rows + fresh, pages: pos.pages + batch.length };
      summary.rows += fresh;
      summary.pages = last;
      summary.bytes += out.size;
      log.progress(summary);
      if (changed) await log.commit(pos, first, last);
      output.committed(bytes);
      reporter.page(summary.rows, last);
    };
    const waiting: Queued[] = [];
    let committing = false;
    const commit = (q: Omit<Queued, 'done'>): Promise<void> => new Promise<void>((resolve, reject) => {
      waiting.push({ ...q, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (committing) return;
      committing = true;
      void (async () => {
        while (waiting.length > 0) {
          const batch = waiting.splice(0);
          const err = await commitPages(batch).then(() => undefined, (e: unknown) => e ?? new Error('commit failed'));
          for (const b of batch) b.done(err);
        }
        committing = false;
      })();
    });

    const runLane = async (type: EmailEventType): Promise<void> => {
      const label = `export email-events ${type}`;
      const outcome = outcomes[type];
      let lane: LanePosition = pos.lanes?.[type] ?? { cursor: null, cursorAt: null, seen: [], rows: 0, pages: 0 };
      // This type's next page is fetched while this one waits for its commit (exports are reads).
      const source = pageSource({
        fetch: pages({ kind: 'email-events', emailType: type }, label),
        start: lane,
        label,
        signal,
        limit: () => opts.limit,
        prefetch: () => true,
        until: () => fatal !== undefined,
        stuck: (n) => stuckCursor(label, n),
      });
      try {
        for await (const { page, step } of source) {
          if (page.repeated > 0) ctx.warn(`${label}: the server sent ${page.repeated} rows of a page twice within the page; each was written once`);
          if (step.again.length > 0) ctx.warn(`${label}: the server sent ${step.again.length} rows that its page before delivered already; each was written once`);
          const next: LanePosition = {
            cursor: step.moved ? page.nextCursor : lane.cursor,
            cursorAt: step.moved ? new Date(ctx.clock.now()).toISOString() : lane.cursorAt,
            seen: step.seen, rows: lane.rows + page.fresh, pages: lane.pages + 1,
          };
          try {
            await commit({ type, page, lane, next });
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
        outcome.error = ctx.redact(err instanceof Error ? err.message : String(err));
        // The API failed this type (after the client's retries): the others go on. Anything else stops them all.
        if (!laneOnly(err) || ctx.signal.aborted || fatal !== undefined) {
          fatal ??= err;
          stop();
          if (fatal !== err) outcome.status = 'stopped';
        } else failures.set(type, err);
      }
    };
    await Promise.all(types.map(runLane));
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (fatal !== undefined) throw fatal;
    const failed = types.filter((t) => outcomes[t].status !== 'complete');
    summary.moreRemains = failed.length > 0;
    if (failed.length > 0) throw typesFailed(types, outcomes, failures.get(failed[0]));
    summary.status = 'complete';
  });
}

/** The run's reporter, with a line per type before the summary (text output; --json has them in `types`). */
export function withTypeLines(ctx: Context, reporter: ExportReporter): ExportReporter {
  return {
    page: (rows, pages) => reporter.page(rows, pages),
    done(summary, run) {
      if (!ctx.globals.json) {
        for (const [type, o] of Object.entries(summary.types ?? {})) {
          ctx.info(`  ${type}: ${o.status}, ${o.rows.toLocaleString('en-US')} rows in ${o.pages} pages${o.error ? ` (${o.error})` : ''}`);
        }
      }
      reporter.done(summary, run);
    },
  };
}

/** A lane's page waiting for the group commit. */
interface Queued {
  type: EmailEventType;
  page: ReceivedPage;
  lane: LanePosition;
  next: LanePosition;
  done(err?: unknown): void;
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
export function typesFailed(types: readonly EmailEventType[], outcomes: Record<string, TypeOutcome>, first: unknown): CliError {
  const failed = types.filter((t) => outcomes[t].status !== 'complete');
  const completed = types.filter((t) => outcomes[t].status === 'complete');
  const reasons = failed.map((t) => `${t} (${outcomes[t].error ?? outcomes[t].status})`).join('; ');
  return new CliError(
    `export email-events: ${failed.length} of ${types.length} types did not complete: ${reasons}; completed: ${completed.length > 0 ? completed.join(', ') : 'none'}`,
    {
      exitCode: first instanceof CliError ? first.exitCode : 7,
      code: first instanceof CliError ? first.code : 'types_failed',
      hint: 'everything delivered is committed, for every type: run the same command again to continue each type from its own cursor',
    },
  );
}
