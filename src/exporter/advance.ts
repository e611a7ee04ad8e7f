import { ResponseShapeError } from '../errors.js';
import type { CursorTrail } from '../lib/cursor-trail.js';
import type { Ids, Skip } from './id-table.js';

/** Cap on remembered row identities (at most a page under the contract; more only from a server that repeats a cursor). */
export const MAX_SEEN = 20_000;

/** Where a page leaves the export. */
export interface Step {
  /** A null cursor: the export is complete. */
  last: boolean;
  /** The cursor moved on (it replaces the saved one). */
  moved: boolean;
  /** The identities to save as `seen` with the position. */
  seen: string[];
  /** What the next page skips: what is left of the saved identities, and (in memory only) this page's rows. */
  nextSkip: Skip;
  /** Rows this page repeated from the page before (not from the saved `seen`). */
  again: string[];
}

/**
 * The pure step of the export protocol: from the cursor a page was fetched with, the identities
 * saved with it, and what the page held, where the export stands after it.
 * - A cursor that moves replaces the saved one; `seen` keeps what was saved and not met yet.
 * - A null cursor ends the export and never replaces the saved one: the next run fetches that
 *   page again from it, so `seen` is exactly its rows.
 * - A cursor handed back unchanged keeps the saved one, and every row delivered from it is
 *   remembered; more than MAX_SEEN of them is the server breaking the contract.
 * - A cursor this run fetched from before (`visited`) is a cycle, not progress (the caller adds
 *   each cursor it moves to).
 * Both refusals come before anything of the page is written.
 */
export function advance(
  {
    cursor,
    saved,
    visited,
    label,
  }: {
    cursor: string | null;
    saved: ReadonlySet<string>;
    visited: Pick<CursorTrail, 'has'>;
    /** What messages call the export. */
    label: string;
  },
  page: {
    nextCursor: string | null;
    /** The identities the page skipped. */
    hits: ReadonlySet<string>;
    /**
     * The identities it wrote, in the order written, in the form saved (a page's `IdTable`: read as
     * strings only when they are saved): needed when the cursor is the last or stays (the page's
     * identities are saved).
     */
    fresh?: Ids;
    /** The page's rows (written or delivered before), in memory: what the next page is compared with. */
    recent: Ids;
    /** Hits of identities saved in an earlier cnv's form -> the row's identity now (saved from now on). */
    renamed?: ReadonlyMap<string, string>;
  },
): Step {
  const last = page.nextCursor === null;
  const moved = !last && page.nextCursor !== cursor;
  if (moved && visited.has(page.nextCursor)) {
    throw new ResponseShapeError(
      `${label}: the server handed back a cursor it had already given in this run (a cycle); stopped before writing that page (everything before is committed)`,
    );
  }
  const again = [...page.hits].filter((id) => !saved.has(id));
  const now = (id: string) => page.renamed?.get(id) ?? id;
  const fresh = () => {
    if (!page.fresh) throw new Error('a page whose identities are saved came without them');
    return page.fresh;
  };
  let seen: string[];
  if (moved) seen = [...saved].filter((id) => !page.hits.has(id));
  else if (last) seen = [...[...page.hits].map(now), ...fresh()];
  else {
    seen = [...saved, ...again, ...fresh()];
    if (seen.length > MAX_SEEN) {
      throw new ResponseShapeError(
        `${label}: the server kept the cursor where it was while sending ${seen.length} distinct rows from it, more than the ${MAX_SEEN} a state remembers; stopped before writing that page (everything before is committed)`,
      );
    }
  }
  // What is left of the saved identities (few, unless the server misbehaves); this page's rows,
  // hits included, are in `recent`, composed in, not copied.
  const left = new Set<string>(moved ? seen : last ? [] : [...saved, ...again]);
  return { last, moved, seen, again, nextSkip: { saved: left, recent: page.recent } };
}
