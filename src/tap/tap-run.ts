import type { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import type { FlattenOptions } from './flatten.js';
import type { SingerOut } from './messages.js';
import type { TapDeps } from './run-deps.js';
import type { Bookmarks } from './bookmarks.js';
import type { StreamMaps } from './stream-maps.js';
import type { StreamName } from './stream-table.js';
import type { StreamWriter } from './stream-writer.js';
import type { TapMeter } from './tap-metrics.js';

/** What one run of the tap is asked for. */
export interface TapRunOptions {
  selected: ReadonlySet<StreamName>;
  /** Per stream, the properties the catalog deselects (left out of its SCHEMA and RECORDs). */
  excluded: Partial<Record<StreamName, ReadonlySet<string>>>;
  bookmarks: Bookmarks;
  /** Per stream, a time the state rewinds it to (an SDK bookmark's `replication_key_value`): rows from it. */
  rewind?: Partial<Record<StreamName, string>>;
  /** ISO 8601: the first run's lower bound (custom events' window start; contacts and email events older are not emitted). */
  startDate?: string;
  /** Rows per request (clamped to each export's bounds); each export's largest by default. */
  pageSize?: number;
  /** `stream_maps` (none: every stream as it is). */
  maps?: StreamMaps;
  /** `flattening_enabled` with its depth. */
  flatten?: FlattenOptions;
  /** --test: one request of one row per stream, no STATE (the SDK's connection test). */
  test?: boolean;
}

/** A run in progress: where messages go, and the bookmarks every STATE carries. */
export interface TapRun {
  deps: TapDeps;
  opts: TapRunOptions;
  out: SingerOut;
  bookmarks: Bookmarks;
  /** When this run began: RECORDs' time_extracted. */
  extractedAt: string;
  limit(kind: keyof typeof EXPORT_PAGE_LIMITS): number;
  /** Writes a STATE with every bookmark (none under --test). */
  commit(): Promise<void>;
  /** After each page, with its rows not delivered before: the heap hold's check (nothing in-process) and the stream's counts. */
  afterPage(fresh: number): void;
  /** The writer of a stream's messages (its outputs after stream_maps). */
  writer(stream: StreamName): StreamWriter;
  meter: TapMeter;
}
