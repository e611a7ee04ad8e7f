import { createHash, randomUUID } from 'node:crypto';
import type { EmailEventType } from '../api/exports.js';
import type { Context } from '../context.js';
import { ApiError, CliError, ResponseShapeError, TransientError } from '../errors.js';
import { writeFlushed } from '../io/write.js';
import { advance } from './advance.js';
import { armCrashPoints, crashPage, crashPoint, type CrashStep } from './crash-points.js';
import type { FileSink } from './file-sink.js';
import { gzipMember } from './gzip-pages.js';
import type { Ids } from './id-table.js';
import { fetchPage } from './kinds.js';
import { BlockPool, pageFormat } from './page-format.js';
import { receiver, type ReceivedPage } from './page-receiver.js';
import { planExport, type ExportRunOptions } from './plan.js';
import type { ExportReporter, ExportSummary, TypeOutcome } from './report.js';
import { nextState } from './run-record.js';
import { cursorRejected, finishManifest, MAX_STUCK_PAGES, needsFirstSave, openOutput, outputError } from './runner.js';
import type { ExportState, LanePosition, Manifest, Position } from './state.js';

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
  armCrashPoints(ctx.env);
  const started = ctx.clock.now();
  const http = await ctx.http();
  const plan = await planExport(ctx, http, opts);
  const runId = opts.runId ?? randomUUID();
  const outcomes: Record<string, TypeOutcome> = Object.fromEntries(types.map((t) => [t, { status: 'failed', rows: 0, pages: 0 }]));
  const summary: ExportSummary = {
    status: 'failed', rows: 0, skipped: 0, pages: 0, bytes: 0, elapsedMs: 0, stateKey: plan.key, runId: plan.key ? runId : null,
    moreRemains: true, output: plan.path ?? 'stdout', pending: false, cutBytes: 0, types: outcomes,
  };
  const manifest: Manifest = {
    runId, startedAt: new Date(started).toISOString(), finishedAt: null, status: 'running', rows: 0, pages: 0, bytes: 0,
    sha256: createHash('sha256').digest('hex'), firstCursor: null, lastCursor: null, output: summary.output, startOffset: null, moreRemains: true,
  };
  let state = plan.prior;
  let committedOnce = false;
  const save = async (p: Position) => {
    if (!plan.store) return;
    state = nextState(plan, state, p, false, manifest, ctx.clock.now());
    await plan.store.write(state);
    committedOnce = true;
  };
  let sink: FileSink | undefined;
  // Ends every lane's request in flight once one lane hit a failure that stops them all.
  const ended = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ended.signal]);
  let fatal: unknown;
  const failures = new Map<string, unknown>();
  try {
    if (plan.path !== undefined) {
      sink = await openOutput(ctx, plan, plan.path);
      summary.cutBytes = sink.cut;
      manifest.startOffset = sink.offset;
      if (plan.fileStart?.mode === 'replace') {
        await save({ ...plan.start, cursor: null, cursorAt: null, seen: [], rows: 0, pages: 0, lanes: {}, output: sink.record(0) });
        await sink.empty();
      }
    }
    let fileRecorded = plan.fileStart?.mode !== 'new' || !plan.store;
    const format = await pageFormat(opts.kind, opts.format, plan.layout, opts.bom, opts.nullAs, opts.excelSafe);
    let needPreamble = sink ? sink.offset === 0 : true;
    const hash = createHash('sha256');
    let pos: Position = {
      ...plan.start, format: opts.format, csv: plan.layout, output: sink ? sink.record() : { kind: 'stdout' }, lanes: { ...plan.start.lanes },
    };
    const pool = new BlockPool();

    /**
     * Group commit: the pages that arrived while the previous commit ran are written together
     * at the committed offset (each page its own gzip member), fsynced once, and committed by
     * one state write holding the file's new length and each of their types' new cursors.
     */
    const commitPages = async (batch: readonly Queued[]): Promise<void> => {
      const first = summary.pages + 1;
      const last = summary.pages + batch.length;
      const each = (step: CrashStep) => { for (let n = first; n <= last; n++) crashPoint(step, n, true); };
      const parts = batch.map((q) => ({ pieces: q.page.pieces, size: q.page.bytes }));
      if (needPreamble) {
        const preamble = format.preamble();
        if (preamble.length > 0) parts[0] = { pieces: [preamble, ...parts[0].pieces], size: parts[0].size + preamble.length };
      }
      if (opts.compress === 'gzip') {
        await Promise.all(parts.map(async (part, i) => {
          if (part.size === 0) return;
          const member = await gzipMember(part.pieces, part.size);
          parts[i] = { pieces: [member], size: member.length };
        }));
      }
      const pieces = parts.flatMap((part) => part.pieces);
      const size = parts.reduce((sum, part) => sum + part.size, 0);
      each('after-fetch');
      signal.throwIfAborted();
      let bytes = pos.output.kind === 'file' ? pos.output.bytes : 0;
      if (sink && size > 0 && !fileRecorded) {
        await save({ ...pos, output: sink.record() });
        fileRecorded = true;
      }
      if (sink) bytes = size > 0 ? await sink.write(pieces, crashPage(first, last)) : sink.offset;
      else if (size > 0) await writeFlushed(ctx.io.stdout, Buffer.concat(pieces, size)).catch((err) => Promise.reject(outputError(err)));
      needPreamble = false;
      for (const piece of pieces) hash.update(piece);
      let changed = needsFirstSave(plan, committedOnce, false);
      const lanes = { ...pos.lanes };
      let fresh = 0;
      for (const { type, page, lane, next } of batch) {
        changed ||= page.fresh > 0 || next.cursor !== lane.cursor || next.seen.length !== lane.seen.length;
        lanes[type] = next;
        fresh += page.fresh;
        summary.skipped += page.hits.size + page.repeated;
      }
      pos = { ...pos, lanes, output: sink ? sink.record(bytes) : { kind: 'stdout' }, rows: pos.rows + fresh, pages: pos.pages + batch.length };
      summary.rows += fresh;
      summary.pages = last;
      summary.bytes += size;
      Object.assign(manifest, { rows: summary.rows, pages: last, bytes: summary.bytes, sha256: hash.copy().digest('hex') });
      if (changed) {
        each('before-state');
        const lost = plan.lock?.lost();
        if (lost) throw new TransientError(`the lock of export state "${plan.key}" was lost (${lost.message}); nothing more committed`, { code: 'lock_lost' });
        await save(pos);
        each('after-state');
      }
      sink?.committed(bytes);
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
      let saved: ReadonlySet<string> = new Set(lane.seen);
      let skip: Ids = saved;
      const visited = new Set<string | null>([lane.cursor]);
      let stuck = 0;
      let ahead: { cursor: string; page: Promise<ReceivedPage> } | undefined;
      try {
        for (;;) {
          if (fatal !== undefined) return void (outcome.status = 'stopped');
          signal.throwIfAborted();
          const receive = (ids: Ids) => receiver(opts.kind, format, ids, pool, opts.limit, label);
          const fetching = ahead?.cursor === lane.cursor ? ahead.page : fetchPage(http, { kind: 'email-events', emailType: type }, lane.cursor, opts.limit, receive(skip), signal);
          ahead = undefined;
          const page = await fetching.catch((err) => Promise.reject(cursorRejected(err, plan, lane)));
          let step;
          try {
            step = advance(lane.cursor, saved, { nextCursor: page.nextCursor, hits: page.hits, fresh: page.freshIds }, visited, label);
          } catch (err) {
            page.release();
            throw err;
          }
          // This type's next page is fetched while this one waits for its commit (exports are reads).
          if (!step.last) {
            const nextPage = fetchPage(http, { kind: 'email-events', emailType: type }, page.nextCursor!, opts.limit, receive(step.nextSkip), signal);
            nextPage.catch(() => {}); // its error, if any, is the next iteration's
            ahead = { cursor: page.nextCursor!, page: nextPage };
          }
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
          stuck = !step.last && !step.moved && page.fresh === 0 ? stuck + 1 : 0;
          outcome.rows += page.fresh;
          outcome.pages += 1;
          lane = next;
          saved = new Set(step.seen);
          skip = step.nextSkip;
          if (step.last) return void (outcome.status = 'complete');
          if (stuck >= MAX_STUCK_PAGES) {
            throw new TransientError(`${label}: the server returned ${stuck} pages in a row without moving the cursor or sending a new row; stopped (everything before is committed)`, { code: 'stuck_cursor' });
          }
        }
      } catch (err) {
        outcome.status = 'failed';
        outcome.error = ctx.redact(err instanceof Error ? err.message : String(err));
        // The API failed this type (after the client's retries): the others go on. Anything else stops them all.
        if (!laneOnly(err) || ctx.signal.aborted || fatal !== undefined) {
          fatal ??= err;
          ended.abort();
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
    await sink?.finish();
    summary.status = 'complete';
    manifest.status = 'complete';
    return summary;
  } catch (err) {
    summary.status = ctx.signal.aborted ? 'interrupted' : 'failed';
    manifest.status = summary.status;
    manifest.error = ctx.redact(err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    ended.abort();
    summary.elapsedMs = ctx.clock.now() - started;
    manifest.finishedAt = new Date(ctx.clock.now()).toISOString();
    manifest.moreRemains = summary.moreRemains;
    if (state && (committedOnce || summary.status === 'complete')) await finishManifest(plan, state as ExportState, manifest);
    await sink?.close();
    await plan.lock?.release();
    reporter.done(summary);
  }
}

/** The run's reporter, with a line per type before the summary (text output; --json has them in `types`). */
export function withTypeLines(ctx: Context, reporter: ExportReporter): ExportReporter {
  return {
    page: (rows, pages) => reporter.page(rows, pages),
    done(summary) {
      if (!ctx.globals.json) {
        for (const [type, o] of Object.entries(summary.types ?? {})) {
          ctx.info(`  ${type}: ${o.status}, ${o.rows.toLocaleString('en-US')} rows in ${o.pages} pages${o.error ? ` (${o.error})` : ''}`);
        }
      }
      reporter.done(summary);
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
