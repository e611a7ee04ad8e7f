import { createHash, randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { ApiError, OutputClosedError, TransientError } from '../errors.js';
import { writeFlushed } from '../io/write.js';
import { armCrashPoints, crashPoint } from './crash-points.js';
import { FileSink } from './file-sink.js';
import { holdHeapSize } from './heap-size.js';
import type { PageReceiver } from '../api/exports.js';
import { fetchPage, rowIdentity } from './kinds.js';
import { BlockPool, PageBytes, pageFormat, type PageFormat } from './page-format.js';
import { planExport, type ExportRunOptions, type RunPlan } from './plan.js';
import type { ExportReporter, ExportSummary } from './report.js';
import { withManifest, type ExportKind, type ExportState, type Manifest, type Position } from './state.js';

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
  const checkHeap = holdHeapSize();
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
    const format = await pageFormat(opts.kind, opts.format, plan.layout, opts.bom, opts.nullAs);
    let needPreamble = sink ? sink.offset === 0 : true;
    const hash = createHash('sha256');
    let pos: Position = { ...plan.start, format: opts.format, csv: plan.layout, output: plan.path !== undefined ? { kind: 'file', path: plan.path, bytes: sink!.offset } : { kind: 'stdout' } };
    let skip = new Set(pos.seen);
    const pool = new BlockPool();
    let stuck = 0;
    let ahead: { cursor: string; page: Promise<ReceivedPage> } | undefined;
    for (;;) {
      if ((opts.maxPages !== undefined && summary.pages >= opts.maxPages) || (opts.maxRows !== undefined && summary.rows >= opts.maxRows)) {
        summary.status = 'stopped';
        break;
      }
      ctx.signal.throwIfAborted();
      const limit = opts.maxRows !== undefined ? Math.min(opts.limit, opts.maxRows - summary.rows) : opts.limit;
      const fetching = ahead?.cursor === pos.cursor ? ahead.page : fetchPage(http, plan.target, pos.cursor, limit, receiver(opts.kind, format, skip, pool), ctx.signal);
      ahead = undefined;
      const page = await fetching.catch((err) => Promise.reject(cursorRejected(err, plan, pos)));
      // A null cursor ends the export and never replaces the saved one: the rows of this page
      // are then remembered, because the next run fetches them again from that cursor.
      const advanced = page.nextCursor !== null;
      const remaining = [...skip].filter((id) => !page.hits.has(id));
      const seen = advanced ? remaining : [...skip, ...page.freshIds()];
      const nextSkip = new Set(seen);
      // Fetch the next page while this one is written and committed (exports are reads: a page
      // fetched and never used costs nothing). Not when a bound may stop the run after this page.
      if (page.nextCursor !== null && opts.maxRows === undefined && (opts.maxPages === undefined || summary.pages + 1 < opts.maxPages)) {
        const next = fetchPage(http, plan.target, page.nextCursor, limit, receiver(opts.kind, format, nextSkip, pool), ctx.signal);
        next.catch(() => {}); // its error, if any, is the next iteration's
        ahead = { cursor: page.nextCursor, page: next };
      }
      const n = summary.pages + 1;
      crashPoint('after-fetch', n, true);

      let pieces = page.pieces;
      let size = page.bytes;
      if (needPreamble) {
        const preamble = format.preamble();
        if (preamble.length > 0) [pieces, size] = [[preamble, ...pieces], size + preamble.length];
      }
      ctx.signal.throwIfAborted();
      let bytes = pos.output.kind === 'file' ? pos.output.bytes : 0;
      if (sink && size > 0 && !fileRecorded) {
        await save({ ...pos, output: { kind: 'file', path: sink.path, bytes: sink.offset } });
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
      stuck = page.rows === 0 && advanced && page.nextCursor === pos.cursor ? stuck + 1 : 0;
      const changed = fresh > 0 || page.nextCursor !== pos.cursor || seen.length !== pos.seen.length || needsFirstSave(plan, committedOnce);
      pos = {
        ...pos,
        cursor: advanced ? page.nextCursor : pos.cursor,
        cursorAt: advanced ? new Date(ctx.clock.now()).toISOString() : pos.cursorAt,
        seen: seen.slice(-MAX_SEEN),
        output: sink ? { kind: 'file', path: sink.path, bytes } : { kind: 'stdout' },
        rows: pos.rows + fresh,
        pages: pos.pages + 1,
      };
      skip = nextSkip;
      summary.rows += fresh;
      summary.skipped += page.hits.size;
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

/** A page as received: its output bytes, and what deduplication found. */
interface ReceivedPage {
  pieces: Buffer[];
  bytes: number;
  /** Rows the server sent, delivered before or not. */
  rows: number;
  /** Rows written (not delivered before). */
  fresh: number;
  /** Identities of the rows written (decoded on demand: only the last page of a run needs them). */
  freshIds(): string[];
  hits: Set<string>;
  nextCursor: string | null;
  /** Hands the page's memory back for later pages: call once it is written and its ids read. */
  release(): void;
}

/**
 * Drops the rows of `skip` and formats the others as they stream in: no page is held parsed.
 * The identities of the rows written go into pooled bytes too, not 5,000 strings a page that
 * would outlive young collections and wait, dead, for a full one.
 */
function receiver(kind: ExportKind, format: PageFormat, skip: ReadonlySet<string>, pool: BlockPool): () => PageReceiver<ReceivedPage> {
  return () => {
    const out = new PageBytes(pool);
    const ids = new PageBytes(pool);
    const hits = new Set<string>();
    let rows = 0;
    let fresh = 0;
    return {
      row(row) {
        rows++;
        const id = rowIdentity(kind, row);
        if (skip.size > 0 && skip.has(id)) hits.add(id);
        else {
          fresh++;
          ids.add(encodeId(id));
          out.add(format.line(row));
        }
      },
      end: (nextCursor) => {
        const written = out.done();
        const idBytes = ids.done();
        return {
          pieces: written.pieces, bytes: written.bytes, rows, fresh, hits, nextCursor,
          freshIds: () => (idBytes.bytes === 0 ? [] : Buffer.concat(idBytes.pieces).toString('utf8').slice(0, -1).split('\n').map(decodeId)),
          release: () => {
            written.release();
            idBytes.release();
          },
        };
      },
    };
  };
}

// One identity a line as UTF-8; as JSON the rare one that would not come back the same (a line
// break, a leading quote, a lone surrogate, which UTF-8 cannot hold).
const encodeId = (id: string) => (id.charCodeAt(0) === 0x22 || id.includes('\n') || !(id as WellFormed).isWellFormed() ? JSON.stringify(id) : id) + '\n';
type WellFormed = string & { isWellFormed(): boolean };
const decodeId = (line: string) => (line.charCodeAt(0) === 0x22 ? (JSON.parse(line) as string) : line);

/** The first page of a run without a state yet, or of a --full run, is always saved, even when empty. */
function needsFirstSave(plan: RunPlan, committedOnce: boolean): boolean {
  return plan.store !== undefined && !committedOnce && (plan.prior === undefined || plan.restarted);
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
