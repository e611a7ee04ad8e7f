import { createHash, randomUUID } from 'node:crypto';
import { configDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { ApiError, LocalFileError, OutputClosedError, TransientError } from '../errors.js';
import { writeFlushed } from '../io/write.js';
import { armCrashPoints, crashPoint } from './crash-points.js';
import { checkFileOwner, claimFile } from './file-owner.js';
import { FileSink } from './file-sink.js';
import { gzipMember } from './gzip-pages.js';
import { holdHeapSize } from './heap-size.js';
import type { Ids } from './id-table.js';
import { fetchPage } from './kinds.js';
import { advance, type Step } from './advance.js';
import { acquireFileLock } from './lock.js';
import { BlockPool, pageFormat } from './page-format.js';
import { receiver, type ReceivedPage } from './page-receiver.js';
import { planExport, type ExportRunOptions, type RunPlan } from './plan.js';
import type { ExportReporter, ExportSummary } from './report.js';
import { nextState } from './run-record.js';
import { withManifest, type ExportState, type Manifest, type Position } from './state.js';

/** Empty pages in a row that return the cursor they were asked with, before the run gives up. */
export const MAX_STUCK_PAGES = 50;
export { MAX_SEEN } from './advance.js';

/**
 * One export run: fetch a page, drop rows already delivered, write, and commit after each page.
 * Into a file: write at the committed offset, fsync, then save cursor and length in one atomic
 * state write; so every row lands exactly once across crashes and resumed runs. To stdout: the
 * state advances only after the page was flushed, or (--defer-commit) into a pending position.
 */
export async function runExport(ctx: Context, opts: ExportRunOptions, reporter: ExportReporter): Promise<ExportSummary> {
  armCrashPoints(ctx.env);
  const checkHeap = holdHeapSize();
  const started = ctx.clock.now();
  const http = await ctx.http();
  const plan = await planExport(ctx, http, opts);
  const runId = opts.runId ?? randomUUID();
  const summary: ExportSummary = {
    status: 'failed', rows: 0, skipped: 0, pages: 0, bytes: 0, elapsedMs: 0, stateKey: plan.key, runId: plan.key ? runId : null,
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
    state = nextState(plan, state, pos, opts.deferCommit, manifest, ctx.clock.now());
    await plan.store.write(state);
    committedOnce = true;
  };
  let sink: FileSink | undefined;
  // Ends a page fetched ahead that the run will not use (it stopped or failed meanwhile).
  const ended = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ended.signal]);
  try {
    if (plan.path !== undefined) {
      sink = await openOutput(ctx, plan, plan.path);
      summary.cutBytes = sink.cut;
      manifest.startOffset = sink.offset;
      if (plan.fileStart?.mode === 'replace') {
        // --full into a file: record the empty file before emptying it, so a crash cannot mix old and new.
        await save({ ...plan.start, cursor: null, cursorAt: null, seen: [], rows: 0, pages: 0, output: sink.record(0) });
        await sink.empty();
      }
    }
    // The state must name the file (at its committed length) before anything is written to it,
    // so that a crash during the first page leaves a tail the next run knows to cut.
    let fileRecorded = plan.fileStart?.mode !== 'new' || !plan.store;
    const format = await pageFormat(opts.kind, opts.format, plan.layout, opts.bom, opts.nullAs, opts.excelSafe);
    let needPreamble = sink ? sink.offset === 0 : true;
    const hash = createHash('sha256');
    let pos: Position = { ...plan.start, format: opts.format, csv: plan.layout, output: sink ? sink.record() : { kind: 'stdout' } };
    // `saved`: the identities the state says were delivered after the cursor. `skip` adds the
    // rows of the page before (in memory only): a server that sends a row again on the next page
    // (an overlapping page boundary) does not get it written twice.
    let saved: ReadonlySet<string> = new Set(pos.seen);
    let skip: Ids = saved;
    const pool = new BlockPool();
    const label = `export ${opts.kind}${opts.emailType ? ` ${opts.emailType}` : ''}`;
    let stuck = 0;
    // Cursors this run has fetched from: one handed back again later is a cycle, not progress.
    const visited = new Set<string | null>([pos.cursor]);
    let ahead: { cursor: string; page: Promise<ReceivedPage> } | undefined;
    for (;;) {
      if ((opts.maxPages !== undefined && summary.pages >= opts.maxPages) || (opts.maxRows !== undefined && summary.rows >= opts.maxRows)) {
        summary.status = 'stopped';
        break;
      }
      ctx.signal.throwIfAborted();
      const limit = opts.maxRows !== undefined ? Math.min(opts.limit, opts.maxRows - summary.rows) : opts.limit;
      const receive = (ids: Ids) => receiver(opts.kind, format, ids, pool, limit, label);
      const fetching = ahead?.cursor === pos.cursor ? ahead.page : fetchPage(http, plan.target, pos.cursor, limit, receive(skip), signal);
      ahead = undefined;
      const page = await fetching.catch((err) => Promise.reject(cursorRejected(err, plan, pos)));
      let step: Step;
      try {
        step = advance(pos.cursor, saved, { nextCursor: page.nextCursor, hits: page.hits, fresh: page.freshIds }, visited, label);
      } catch (err) {
        page.release();
        throw err;
      }
      const { last, moved, seen, again } = step;
      // Fetch the next page while this one is written and committed (exports are reads: a page
      // fetched and never used costs nothing). Not when a bound may stop the run after this page.
      if (!last && opts.maxRows === undefined && (opts.maxPages === undefined || summary.pages + 1 < opts.maxPages)) {
        const next = fetchPage(http, plan.target, page.nextCursor!, limit, receive(step.nextSkip), signal);
        next.catch(() => {}); // its error, if any, is the next iteration's
        ahead = { cursor: page.nextCursor!, page: next };
      }
      const n = summary.pages + 1;
      crashPoint('after-fetch', n, true);
      if (page.repeated > 0) ctx.warn(`${label}: the server sent ${page.repeated} rows of page ${n} twice within the page; each was written once`);
      if (again.length > 0) ctx.warn(`${label}: the server sent ${again.length} rows on page ${n} that page ${n - 1} delivered already; each was written once`);

      let pieces = page.pieces;
      let size = page.bytes;
      if (needPreamble) {
        const preamble = format.preamble();
        if (preamble.length > 0) [pieces, size] = [[preamble, ...pieces], size + preamble.length];
      }
      // gzip: the page (with the preamble, on the first) is one complete member; the file's
      // committed lengths, tail hash and manifest checksum are of these bytes, as on disk.
      if (opts.compress === 'gzip' && size > 0) {
        const member = await gzipMember(pieces, size);
        [pieces, size] = [[member], member.length];
      }
      ctx.signal.throwIfAborted();
      let bytes = pos.output.kind === 'file' ? pos.output.bytes : 0;
      if (sink && size > 0 && !fileRecorded) {
        await save({ ...pos, output: sink.record() });
        fileRecorded = true;
      }
      if (sink) bytes = size > 0 ? await sink.write(pieces, n) : sink.offset;
      // One copy for a stream: its write callback may come before a consumer read the bytes, and
      // the pooled blocks are about to serve the next page.
      else if (size > 0) await writeFlushed(ctx.io.stdout, Buffer.concat(pieces, size)).catch((err) => Promise.reject(outputError(err)));
      needPreamble = false;
      for (const piece of pieces) hash.update(piece);
      page.release();

      const fresh = page.fresh;
      stuck = !last && !moved && fresh === 0 ? stuck + 1 : 0;
      const changed = fresh > 0 || page.nextCursor !== pos.cursor || seen.length !== pos.seen.length || needsFirstSave(plan, committedOnce, opts.deferCommit);
      pos = {
        ...pos,
        cursor: moved ? page.nextCursor : pos.cursor,
        cursorAt: moved ? new Date(ctx.clock.now()).toISOString() : pos.cursorAt,
        seen,
        output: sink ? sink.record(bytes) : { kind: 'stdout' },
        rows: pos.rows + fresh,
        pages: pos.pages + 1,
      };
      saved = new Set(seen);
      skip = step.nextSkip;
      summary.rows += fresh;
      summary.skipped += page.hits.size + page.repeated;
      summary.pages = n;
      summary.bytes += size;
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
      checkHeap();
      if (last) {
        summary.status = 'complete';
        summary.moreRemains = false;
        break;
      }
      if (stuck >= MAX_STUCK_PAGES) {
        throw new TransientError(`the server returned ${stuck} pages in a row without moving the cursor or sending a new row; stopped (everything before is committed)`, {
          code: 'stuck_cursor',
          hint: 'try again later; if it persists, report it to the API provider',
        });
      }
    }
    await sink?.finish();
    manifest.status = opts.deferCommit ? 'pending' : summary.status === 'complete' ? 'complete' : 'stopped';
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
    // Every run's manifest; but a run that failed before committing anything (a rejected cursor) leaves the state untouched.
    if (state && (committedOnce || summary.status === 'complete' || summary.status === 'stopped')) await finishManifest(plan, state, manifest);
    await sink?.close();
    await plan.lock?.release();
    reporter.done(summary);
  }
}

/**
 * Opens the output file under its own lock (by device and inode). A state resuming a file that
 * another state writes now is refused before anything is cut; any other state run claims it.
 */
export async function openOutput(ctx: Context, plan: RunPlan, path: string): Promise<FileSink> {
  const dir = configDir(ctx.env);
  // A one-off export needs no config directory: where none can be written, it replaces the file unlocked.
  const oneOff = plan.fileStart?.mode === 'temp';
  const resuming = plan.fileStart?.mode === 'resume';
  const sink = await FileSink.open(path, plan.fileStart!, async (fileId) => {
    const lock = await acquireFileLock(dir, fileId, path).catch((err) => (oneOff && err instanceof LocalFileError ? undefined : Promise.reject(err)));
    try {
      if (resuming) checkFileOwner(dir, fileId, plan.key!, path);
    } catch (err) {
      await lock?.release();
      throw err;
    }
    return lock;
  });
  try {
    if (plan.key) claimFile(dir, sink.fileId, plan.key);
  } catch (err) {
    await sink.close();
    throw err;
  }
  return sink;
}

/** The first page of a run without a state yet, of a --full run, or of a --defer-commit run (its pending position) is always saved, even when empty. */
export function needsFirstSave(plan: RunPlan, committedOnce: boolean, defer: boolean): boolean {
  return plan.store !== undefined && !committedOnce && (plan.prior === undefined || plan.restarted || defer);
}

export async function finishManifest(plan: RunPlan, state: ExportState, manifest: Manifest): Promise<void> {
  try {
    await plan.store!.write({ ...state, runs: withManifest(state.runs, manifest) });
  } catch {
    // The manifest is a record of the run; the committed position is already safe.
  }
}

/** invalid_cursor on a saved cursor: exit 3, state untouched, and say how to start over. */
export function cursorRejected(err: unknown, plan: RunPlan, pos: Pick<Position, 'cursor'>): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_cursor' || pos.cursor === null) return err;
  const whose = plan.key ? `the saved cursor of export state "${plan.key}"` : 'the cursor';
  return new ApiError(err.status, err.code, `the server rejected ${whose} (${err.message}); the state is unchanged`,
    `nothing was restarted silently: run again with --full to export everything from the beginning${plan.key ? `, or \`cnv export state show ${plan.key}\` to inspect it` : ''}`);
}

export function outputError(err: unknown): unknown {
  return (err as NodeJS.ErrnoException)?.code === 'EPIPE' ? new OutputClosedError() : err;
}
