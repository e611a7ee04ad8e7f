import { createHash, randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { ApiError, OutputClosedError, TransientError } from '../errors.js';
import { writeFlushed } from '../io/write.js';
import { armCrashPoints, crashPoint } from './crash-points.js';
import { FileSink } from './file-sink.js';
import type { ExportPage } from '../api/exports.js';
import { fetchPage, rowIdentity } from './kinds.js';
import { pageFormat } from './page-format.js';
import { planExport, type ExportRunOptions, type RunPlan } from './plan.js';
import type { ExportReporter, ExportSummary } from './report.js';
import { withManifest, type ExportState, type Manifest, type Position } from './state.js';

/** Empty pages in a row that return the cursor they were asked with, before the run gives up. */
export const MAX_STUCK_PAGES = 50;
/** Cap on remembered row identities (they only outgrow a page when rows vanished between runs). */
const MAX_SEEN = 20_000;

/**
 * One export run: fetch a page, drop rows already delivered, write, and commit after each page.
 * Into a file: write at the committed offset, fsync, then save cursor and length in one atomic
 * state write; so every row lands exactly once across crashes and resumed runs. To stdout: the
 * state advances only after the page was flushed, or (--defer-commit) into a pending position.
 */
export async function runExport(ctx: Context, opts: ExportRunOptions, reporter: ExportReporter): Promise<ExportSummary> {
  armCrashPoints(ctx.env);
  const started = ctx.clock.now();
  const http = await ctx.http();
  const plan = await planExport(ctx, http, opts);
  const runId = randomUUID();
  const summary: ExportSummary = {
    status: 'failed', rows: 0, skipped: 0, pages: 0, bytes: 0, elapsedMs: 0, stateKey: plan.key,
    moreRemains: true, output: plan.path ?? 'stdout', pending: opts.deferCommit, cutBytes: 0,
  };
  const manifest: Manifest = {
    runId, startedAt: new Date(started).toISOString(), finishedAt: null, status: 'running', rows: 0, pages: 0, bytes: 0,
    sha256: createHash('sha256').digest('hex'), firstCursor: plan.start.cursor, lastCursor: plan.start.cursor,
    output: summary.output, startOffset: null, moreRemains: true,
  };
  let state = plan.prior;
  let committedOnce = false;
  const save = async (pos: Position | null) => {
    if (!plan.store) return;
    state = nextState(plan, state, pos, opts.deferCommit, runId, manifest, ctx.clock.now());
    await plan.store.write(state);
    committedOnce = true;
  };
  let sink: FileSink | undefined;
  try {
    // The state must name the file (at its committed length) before anything is written to it,
    // so that a crash during the first page leaves a tail the next run knows to cut.
    let fileRecorded = plan.fileStart?.mode === 'resume' || !plan.store;
    if (plan.path !== undefined && plan.fileStart?.mode === 'replace' && plan.store) {
      // --full into a file: record the empty file before emptying it, so a crash cannot mix old and new.
      fileRecorded = true;
      await save({ ...plan.start, cursor: null, cursorAt: null, seen: [], rows: 0, pages: 0, output: { kind: 'file', path: plan.path, bytes: 0 } });
    }
    if (plan.path !== undefined) {
      sink = await FileSink.open(plan.path, plan.fileStart!);
      summary.cutBytes = sink.cut;
      manifest.startOffset = sink.offset;
    }
    const format = await pageFormat(opts.kind, opts.format, plan.layout, opts.bom);
    let needPreamble = sink ? sink.offset === 0 : true;
    const hash = createHash('sha256');
    let pos: Position = { ...plan.start, format: opts.format, csv: plan.layout, output: plan.path !== undefined ? { kind: 'file', path: plan.path, bytes: sink!.offset } : { kind: 'stdout' } };
    let skip = new Set(pos.seen);
    let stuck = 0;
    let ahead: { cursor: string; page: Promise<ExportPage> } | undefined;
    for (;;) {
      if ((opts.maxPages !== undefined && summary.pages >= opts.maxPages) || (opts.maxRows !== undefined && summary.rows >= opts.maxRows)) {
        summary.status = 'stopped';
        break;
      }
      ctx.signal.throwIfAborted();
      const limit = opts.maxRows !== undefined ? Math.min(opts.limit, opts.maxRows - summary.rows) : opts.limit;
      const fetching = ahead?.cursor === pos.cursor ? ahead.page : fetchPage(http, plan.target, pos.cursor, limit, ctx.signal);
      ahead = undefined;
      const page = await fetching.catch((err) => Promise.reject(cursorRejected(err, plan, pos)));
      // Fetch the next page while this one is written and committed (exports are reads: a page
      // fetched and never used costs nothing). Not when a bound may stop the run after this page.
      if (page.nextCursor !== null && opts.maxRows === undefined && (opts.maxPages === undefined || summary.pages + 1 < opts.maxPages)) {
        const next = fetchPage(http, plan.target, page.nextCursor, limit, ctx.signal);
        next.catch(() => {}); // its error, if any, is the next iteration's
        ahead = { cursor: page.nextCursor, page: next };
      }
      const n = summary.pages + 1;
      crashPoint('after-fetch', n, true);

      const fresh = [];
      const freshIds: string[] = [];
      const hits = new Set<string>();
      for (const row of page.rows) {
        const id = rowIdentity(opts.kind, row);
        if (skip.has(id)) hits.add(id);
        else {
          fresh.push(row);
          freshIds.push(id);
        }
      }
      let chunk = format.page(fresh);
      if (needPreamble) chunk = Buffer.concat([format.preamble(), chunk]);
      ctx.signal.throwIfAborted();
      let bytes = pos.output.kind === 'file' ? pos.output.bytes : 0;
      if (sink && chunk.length > 0 && !fileRecorded) {
        await save({ ...pos, output: { kind: 'file', path: sink.path, bytes: sink.offset } });
        fileRecorded = true;
      }
      if (sink) bytes = chunk.length > 0 ? await sink.write(chunk, n) : sink.offset;
      else if (chunk.length > 0) await writeFlushed(ctx.io.stdout, chunk).catch((err) => Promise.reject(outputError(err)));
      needPreamble = false;
      hash.update(chunk);

      // A null cursor ends the export and never replaces the saved one: the rows of this page
      // are then remembered, because the next run fetches them again from that cursor.
      const advanced = page.nextCursor !== null;
      const remaining = [...skip].filter((id) => !hits.has(id));
      const seen = advanced ? remaining : [...skip, ...freshIds];
      stuck = page.rows.length === 0 && advanced && page.nextCursor === pos.cursor ? stuck + 1 : 0;
      const changed = fresh.length > 0 || page.nextCursor !== pos.cursor || seen.length !== pos.seen.length || needsFirstSave(plan, committedOnce);
      pos = {
        ...pos,
        cursor: advanced ? page.nextCursor : pos.cursor,
        cursorAt: advanced ? new Date(ctx.clock.now()).toISOString() : pos.cursorAt,
        seen: seen.slice(-MAX_SEEN),
        output: sink ? { kind: 'file', path: sink.path, bytes } : { kind: 'stdout' },
        rows: pos.rows + fresh.length,
        pages: pos.pages + 1,
      };
      skip = advanced ? new Set(remaining) : new Set(seen);
      summary.rows += fresh.length;
      summary.skipped += hits.size;
      summary.pages = n;
      summary.bytes += chunk.length;
      Object.assign(manifest, { rows: summary.rows, pages: n, bytes: summary.bytes, sha256: hash.copy().digest('hex'), lastCursor: pos.cursor });

      if (changed) {
        crashPoint('before-state', n, true);
        const lost = plan.lock?.lost();
        if (lost) throw new TransientError(`the lock of export state "${plan.key}" was lost (${lost.message}); nothing more committed`, { code: 'lock_lost' });
        await save(pos);
        crashPoint('after-state', n, true);
      }
      sink?.committed(bytes);
      reporter.page(summary.rows, n);
      if (!advanced) {
        summary.status = 'complete';
        summary.moreRemains = false;
        break;
      }
      if (stuck >= MAX_STUCK_PAGES) {
        throw new TransientError(`the server returned ${stuck} empty pages in a row without moving the cursor; stopped (everything before is committed)`, {
          code: 'stuck_cursor',
          hint: 'try again later; if it persists, report it to the API provider',
        });
      }
    }
    manifest.status = opts.deferCommit ? 'pending' : summary.status === 'complete' ? 'complete' : 'stopped';
    return summary;
  } catch (err) {
    summary.status = ctx.signal.aborted ? 'interrupted' : 'failed';
    manifest.status = summary.status;
    manifest.error = err instanceof Error ? err.message : String(err);
    throw err;
  } finally {
    summary.elapsedMs = ctx.clock.now() - started;
    manifest.finishedAt = new Date(ctx.clock.now()).toISOString();
    manifest.moreRemains = summary.moreRemains;
    // Every run's manifest; but a run that failed before committing anything (a rejected cursor) leaves the state untouched.
    if (state && (committedOnce || summary.status === 'complete' || summary.status === 'stopped')) await finishManifest(plan, state, manifest);
    await sink?.close();
    await plan.lock?.release();
    reporter.done(summary);
  }
}

/** The first page of a run without a state yet is always saved, even when empty. */
function needsFirstSave(plan: RunPlan, committedOnce: boolean): boolean {
  return plan.store !== undefined && !committedOnce && (plan.prior === undefined || plan.fileStart?.mode === 'replace');
}

function nextState(plan: RunPlan, state: ExportState | undefined, pos: Position | null, defer: boolean, runId: string, manifest: Manifest, nowMs: number): ExportState {
  const now = new Date(nowMs).toISOString();
  const base: ExportState = state ?? {
    version: 1, key: plan.key!, kind: plan.target.kind, ...(plan.target.emailType ? { emailType: plan.target.emailType } : {}),
    profile: plan.profile, baseUrl: plan.baseUrl, createdAt: now, updatedAt: now, current: { ...plan.start, cursor: null, seen: [], rows: 0, pages: 0 }, runs: [],
  };
  const next: ExportState = { ...base, profile: plan.profile, baseUrl: plan.baseUrl, updatedAt: now, runs: withManifest(base.runs, { ...manifest, status: manifest.status }) };
  if (pos && defer) next.pending = { ...pos, runId, savedAt: now };
  else if (pos) {
    next.current = pos;
    // A pending position was based on an older current one: committing it later would go back.
    delete next.pending;
  }
  return next;
}

async function finishManifest(plan: RunPlan, state: ExportState, manifest: Manifest): Promise<void> {
  try {
    await plan.store!.write({ ...state, runs: withManifest(state.runs, manifest) });
  } catch {
    // The manifest is a record of the run; the committed position is already safe.
  }
}

/** invalid_cursor on a saved cursor: exit 3, state untouched, and say how to start over. */
function cursorRejected(err: unknown, plan: RunPlan, pos: Position): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_cursor' || pos.cursor === null) return err;
  const whose = plan.key ? `the saved cursor of export state "${plan.key}"` : 'the cursor';
  return new ApiError(err.status, err.code, `the server rejected ${whose} (${err.message}); the state is unchanged`,
    `nothing was restarted silently: run again with --full to export everything from the beginning${plan.key ? `, or \`cnv export state show ${plan.key}\` to inspect it` : ''}`);
}

function outputError(err: unknown): unknown {
  return (err as NodeJS.ErrnoException)?.code === 'EPIPE' ? new OutputClosedError() : err;
}
