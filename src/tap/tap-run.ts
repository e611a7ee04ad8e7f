import type { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import type { SingerOut } from './messages.js';
import type { TapDeps } from './run-deps.js';
import type { Bookmarks } from './bookmarks.js';
import type { StreamName } from './stream-table.js';

/** What one sync is asked for. */
export interface TapRunOptions {
  selected: ReadonlySet<StreamName>;
  /** Per stream, the properties the catalog deselects (left out of its SCHEMA and RECORDs). */
  excluded: Partial<Record<StreamName, ReadonlySet<string>>>;
  bookmarks: Bookmarks;
  /** ISO 8601: the first run's lower bound (custom events' window start; contacts and email events older are not emitted). */
  startDate?: string;
  /** Rows per request (clamped to each export's bounds); each export's largest by default. */
  pageSize?: number;
}

/** A sync in progress: where messages go, and the bookmarks every STATE carries. */
export interface TapRun {
  deps: TapDeps;
  opts: TapRunOptions;
  out: SingerOut;
  bookmarks: Bookmarks;
  /** When this run began: RECORDs' time_extracted. */
  extractedAt: string;
  limit(kind: keyof typeof EXPORT_PAGE_LIMITS): number;
  /** Writes a STATE with every bookmark. */
  commit(): Promise<void>;
  /** After each page: the heap hold's check (nothing in-process). */
  checkHeap(): void;
}
