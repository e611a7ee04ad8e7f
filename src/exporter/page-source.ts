import { ApiError, TransientError } from '../errors.js';
import { advance, type Step } from './advance.js';
import type { Ids, Skip } from './id-table.js';
import { fieldsKeptChanging, MAX_FIELD_CHANGES } from './field-watch.js';
import { savedForms } from './kinds.js';
import type { ReceivedPage } from './page-receiver.js';
import type { RunPlan } from './export-run-options.js';
import type { Position } from './export-state.js';
import { CursorTrail } from '../lib/cursor-trail.js';

/** Empty pages in a row that return the cursor they were asked with, before the run gives up. */
export const MAX_STUCK_PAGES = 50;

/** One page from `cursor` (null: the first), skipping the rows of `skip`, at most `limit` rows. */
export type FetchPage = (
  cursor: string | null,
  limit: number,
  skip: Skip,
  signal: AbortSignal,
) => Promise<ReceivedPage>;

export interface PageSourceOptions {
  fetch: FetchPage;
  /** The committed position: its cursor and the identities saved with it. */
  start: { cursor: string | null; seen: readonly string[] };
  label: string;
  signal: AbortSignal;
  /** Rows to ask for in the next request (--max-rows asks for no more than it takes). */
  limit: () => number;
  /** Whether the run may go on past the page at hand, so that the next one is worth fetching ahead. */
  prefetch: () => boolean;
  /** Checked before each page: true ends the pages (a bound was reached, or the run is stopping). */
  until?: () => boolean;
  /** The error after MAX_STUCK_PAGES empty pages that kept the cursor. */
  stuck: (pages: number) => Error;
  /**
   * Asked after each page arrives, before anything of it is handed out: false when the page is
   * not to be trusted (the account's field labels changed while it was read: field-watch.ts); it
   * is then fetched again from the same cursor, at most MAX_FIELD_CHANGES times in a row.
   */
  trust?: (page: ReceivedPage) => Promise<boolean>;
}

/**
 * The pages of one export, from its committed position: each fetched (the next one ahead of
 * time, while the consumer writes and commits the one at hand: exports are reads, a page fetched
 * and never used costs nothing) and checked by `advance` before it is handed out. The consumer
 * takes the next page only once it committed this one; the position moves on then. The pages
 * end after the last one (a null cursor) or when `until` says so; a consumer that stops early,
 * or fails, ends the page fetched ahead. Refusals (a cycle, too many rows from one cursor, a
 * stuck cursor) are thrown before anything of that page is handed out.
 */
export async function* pageSource(opts: PageSourceOptions): AsyncGenerator<
  {
    page: ReceivedPage;
    step: Step;
    /** The cursor it was fetched with. */
    cursor: string | null;
  },
  void,
  undefined
> {
  const ended = new AbortController();
  const signal = AbortSignal.any([opts.signal, ended.signal]);
  let cursor = opts.start.cursor;
  // `saved`: the identities the state says were delivered after the cursor. `skip` adds the
  // rows of the page before (in memory only): a server that sends a row again on the next page
  // (an overlapping page boundary) does not get it written twice.
  let saved: ReadonlySet<string> = new Set(opts.start.seen);
  let skip = skipOf(saved);
  // Cursors this run has fetched from (their digests): one handed back again later is a cycle, not progress.
  const visited = new CursorTrail(cursor);
  let stuck = 0;
  // Reads of the page at hand the field watch did not trust.
  let reads = 0;
  let ahead: { cursor: string; page: Promise<ReceivedPage> } | undefined;
  try {
    for (;;) {
      if (opts.until?.()) return;
      opts.signal.throwIfAborted();
      const limit = opts.limit();
      const fetching = ahead?.cursor === cursor ? ahead.page : opts.fetch(cursor, limit, skip, signal);
      ahead = undefined;
      const page = await fetching;
      if (opts.trust && !(await trusted(opts, page, ++reads))) continue;
      reads = 0;
      let step: Step;
      try {
        step = advance({ cursor, saved, visited, label: opts.label }, { ...page, fresh: page.freshIds });
      } catch (err) {
        page.release();
        throw err;
      }
      if (step.moved) visited.add(page.nextCursor);
      const nextSkip = skipOf(step.nextSkip.saved, step.nextSkip.recent);
      if (!step.last && opts.prefetch()) {
        const next = opts.fetch(page.nextCursor!, limit, nextSkip, signal);
        next.catch(() => {}); // its error, if any, is the next page's
        ahead = { cursor: page.nextCursor!, page: next };
      }
      yield { page, step, cursor };
      if (step.last) return;
      stuck = !step.moved && page.fresh === 0 ? stuck + 1 : 0;
      cursor = page.nextCursor;
      saved = new Set(step.seen);
      skip = nextSkip;
      if (stuck >= MAX_STUCK_PAGES) throw opts.stuck(stuck);
    }
  } finally {
    ended.abort();
  }
}

/** Whether the page is trusted (`trust`); if not, it is released to be read again, or (too many reads) the run stops. */
async function trusted(opts: PageSourceOptions, page: ReceivedPage, reads: number): Promise<boolean> {
  let ok = false;
  try {
    ok = await opts.trust!(page);
  } finally {
    if (!ok) page.release();
  }
  if (!ok && reads >= MAX_FIELD_CHANGES) throw fieldsKeptChanging(opts.label);
  return ok;
}

/** What the next page skips: the saved identities (and what the receiver reads of them: savedForms), the page before's rows. */
function skipOf(saved: Ids, recent?: Ids): Skip {
  return { saved, ...savedForms(saved), ...(recent ? { recent } : {}) };
}

/** invalid_cursor on a saved cursor: exit 3, state untouched, and say how to start over. */
export function cursorRejected(err: unknown, plan: RunPlan, pos: Pick<Position, 'cursor'>): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_cursor' || pos.cursor === null) return err;
  const whose = plan.key ? `the saved cursor of export state "${plan.key}"` : 'the cursor';
  return new ApiError(
    err.status,
    err.code,
    `the server rejected ${whose} (${err.message}); the state is unchanged`,
    `nothing was restarted silently: run again with --full to export everything from the beginning${plan.key ? `, or \`cnv export state show ${plan.key}\` to inspect it` : ''}`,
  );
}

/** The error of a cursor that stopped moving. */
export function stuckCursor(label: string | undefined, pages: number, hint?: string): TransientError {
  return new TransientError(
    `${label ? `${label}: ` : ''}the server returned ${pages} pages in a row without moving the cursor or sending a new row; stopped (everything before is committed)`,
    {
      code: 'stuck_cursor',
      ...(hint ? { hint } : {}),
    },
  );
}
