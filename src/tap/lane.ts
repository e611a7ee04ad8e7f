import type { HttpClient } from '../http/client.js';
import { ApiError } from '../errors.js';
import { fetchPage, type ExportTarget } from '../exporter/kinds.js';
import { nextPosition, repeatWarnings } from '../exporter/next-position.js';
import { BlockPool, type PageFormat } from '../exporter/page-format.js';
import { receiver, type ReceivedPage } from '../exporter/page-receiver.js';
import { pageSource, stuckCursor, type FetchPage } from '../exporter/page-source.js';
import type { LanePosition } from '../exporter/export-state.js';
import type { SingerOut } from './messages.js';

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
  /** After each page is committed (the heap hold's check). */
  afterPage?: () => void;
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
    fetchPage(http, target, cursor, rows, receiver(target.kind, format, skip, pool, rows, label), signal);
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
      input.afterPage?.();
    }
  } catch (err) {
    throw rejectedCursor(err, label, pos);
  }
  return pos;
}

/** invalid_cursor on a saved cursor: say how to start over (nothing is restarted silently). */
function rejectedCursor(err: unknown, label: string, pos: LanePosition): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_cursor' || pos.cursor === null) return err;
  return new ApiError(
    err.status,
    err.code,
    `${label}: the server rejected the state's cursor (${err.message})`,
    'run without --state (Meltano: --full-refresh) to sync this stream from the start',
  );
}
