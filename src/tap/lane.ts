import type { HttpClient } from '../http/client.js';
import { ApiError } from '../errors.js';
import { fetchPage, type ExportTarget } from '../exporter/kinds.js';
import { nextPosition, repeatWarnings } from '../exporter/next-position.js';
import { BlockPool, type PageFormat } from '../exporter/page-format.js';
import { receiver, type ReceivedPage } from '../exporter/page-receiver.js';
import { pageSource, stuckCursor, type FetchPage } from '../exporter/page-source.js';
import type { LanePosition } from '../exporter/export-state.js';
import type { SingerOut } from './messages.js';
import type { MemberKeys } from '../lib/member-keys.js';
import type { TapRun } from './tap-run.js';

/** One cursor of the tap (contacts, custom events, one email event type). */
interface LaneInput {
  http: HttpClient;
  target: ExportTarget;
  start: LanePosition;
  limit: number;
  /** For messages: `contacts`, `email_events EMAIL_OPEN`. */
  label: string;
  signal: AbortSignal;
  now: () => number;
  warn: (message: string) => void;
  format: PageFormat;
  out: SingerOut;
  /** Writes the rows a page held back (ReceivedPage.held), after its other rows. */
  writeHeld?: (held: NonNullable<ReceivedPage['held']>) => Promise<void>;
  /** After each page's records are written: the lane's new position, to write a STATE with. */
  commit: (pos: LanePosition) => Promise<void>;
  /** True once the run is to end after the page at hand (max pages, a test's bound). */
  until?: () => boolean;
  /** After each page is committed, with its rows not delivered before (the heap hold's check, the counts). */
  afterPage?: (fresh: number) => void;
  /** Contacts: the field labels the pages are read under (row identities), and the check after each page (pageSource's trust). */
  fields?: { names(): MemberKeys; trust(): Promise<boolean> };
}

/**
 * Runs one cursor from its saved position to its end with the exporter's protocol
 * (src/exporter/page-source.ts): each page's fresh rows written as RECORDs, then its position
 * committed as a STATE; the next page is fetched meanwhile. Returns the last position.
 */
export async function runLane(input: LaneInput): Promise<LanePosition> {
  const { http, target, limit, label, format, out } = input;
  const pool = new BlockPool();
  const fetch: FetchPage = (cursor, rows, skip, signal) =>
    fetchPage(
      http,
      target,
      cursor,
      rows,
      receiver(format, { kind: target.kind, cursor, skip, pool, limit: rows, label, names: input.fields?.names() }),
      signal,
    );
  let pos = input.start;
  try {
    for await (const { page, step } of pageSource({
      fetch,
      start: { cursor: pos.cursor, seen: pos.seen },
      label,
      signal: input.signal,
      limit: () => limit,
      prefetch: () => !input.until?.(),
      until: input.until,
      stuck: (pages) => stuckCursor(label, pages),
      trust: input.fields && (() => input.fields!.trust()),
    })) {
      try {
        await out.bytes(page.pieces);
        if (page.held) await input.writeHeld!(page.held);
      } finally {
        page.release();
      }
      for (const warning of repeatWarnings(label, page, step)) input.warn(warning);
      pos = nextPosition(pos, page, step, input.now());
      await input.commit(pos);
      input.afterPage?.(page.fresh);
    }
  } catch (err) {
    throw rejectedCursor(err, label, pos, input.start);
  }
  return pos;
}

/** The state's cursor, refused before any page of this run: the stream (or email type) starts over (tap-sync.ts). */
class StateCursorRefused extends Error {
  constructor(
    readonly label: string,
    readonly error: ApiError,
  ) {
    super(`${label}: the server refused the state's cursor (${error.message})`);
  }
}

/**
 * invalid_cursor: the state's own cursor (nothing read yet) is a StateCursorRefused, which
 * restarts that stream alone; a cursor this run was given is the server's doing, said so.
 */
function rejectedCursor(err: unknown, label: string, pos: LanePosition, start: LanePosition): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_cursor' || pos.cursor === null) return err;
  if (pos === start) return new StateCursorRefused(label, err);
  return new ApiError(
    err.status,
    err.code,
    `${label}: the server refused the cursor it gave on the page before (${err.message})`,
    'run again: the last STATE holds that cursor, and a cursor refused at the start restarts this stream alone',
  );
}

/** The lane input every stream shares: the client, messages, the page hook; under --test, one page. */
export function laneBase(run: TapRun, label: string) {
  const { deps, out, opts } = run;
  // --test: the page source asks `until` before the first page (go on), then after it (stop).
  let asked = 0;
  return {
    http: deps.http,
    label,
    signal: deps.signal,
    now: deps.now,
    warn: deps.warn,
    out,
    afterPage: run.afterPage,
    ...(opts.test ? { until: () => asked++ > 0 } : {}),
  };
}

/**
 * Runs `attempt`; when the state's cursor is refused (StateCursorRefused), says so and runs it
 * once more from the start (`restarted` true): that stream (or email type) alone starts over,
 * the others keep their bookmarks.
 */
export async function afterRefusal(
  warn: (message: string) => void,
  what: string,
  attempt: (restarted: boolean) => Promise<void>,
): Promise<void> {
  try {
    await attempt(false);
  } catch (err) {
    if (!(err instanceof StateCursorRefused)) throw err;
    warn(`${err.message}: ${what} starts over from its beginning; the other streams keep their bookmarks`);
    await attempt(true);
  }
}
