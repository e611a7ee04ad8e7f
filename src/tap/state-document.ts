import { UsageError } from '../errors.js';
import { isStreamName, STREAM_NAMES, STREAMS, type StreamName } from './stream-table.js';

// What --state must be before its bookmarks are read (bookmarks.ts): the value of a STATE
// message (`{"bookmarks": {...}}`), bookmarks of the tap's streams only. A bookmark of the Meltano
// SDK's form (`replication_key_value`) is a rewind: the stream reads from that time on.

/** What a state document holds besides its own bookmarks. */
interface StateParts {
  /** The document without the SDK-form bookmarks (the tap's own, for bookmarks.ts to read). */
  state: Record<string, unknown>;
  /** Per stream, the time an SDK-form bookmark names (ISO 8601, UTC). */
  rewind: Partial<Record<StreamName, string>>;
}

const MEMBERS = ['bookmarks', 'currently_syncing'];

/**
 * Refuses (exit 2, naming what it is) a document that is not a state of this tap: not an object,
 * members a state does not have (a config given as --state), a bookmark of a stream the tap does
 * not have; and takes out the SDK-form bookmarks. The tap never writes `replication_key_value`:
 * one in a bookmark was put there to rewind the stream, and wins over its cursor.
 */
export function stateParts(flag: string, path: string, doc: unknown, warn: (m: string) => void): StateParts {
  const notState = (what: string) =>
    new UsageError(
      `${flag} ${path}: not a state of this tap: ${what}`,
      'give the value of the last STATE message a run wrote ({"bookmarks": {...}}), or none to start over',
      'not_a_state',
    );
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw notState('not a JSON object');
  const extra = Object.keys(doc).filter((m) => !MEMBERS.includes(m));
  if (extra.length > 0) throw notState(`it has ${extra.slice(0, 5).join(', ')} (a state has bookmarks)`);
  const bookmarks = (doc as Record<string, unknown>).bookmarks;
  if (bookmarks === undefined || bookmarks === null) return { state: {}, rewind: {} };
  if (typeof bookmarks !== 'object' || Array.isArray(bookmarks)) throw notState('bookmarks is not an object');
  const own: Record<string, unknown> = {};
  const rewind: StateParts['rewind'] = {};
  for (const [stream, bookmark] of Object.entries(bookmarks)) {
    if (!isStreamName(stream))
      throw notState(`bookmarks.${stream}: no stream "${stream}" in this tap (streams: ${STREAM_NAMES.join(', ')})`);
    const value = (bookmark as Record<string, unknown> | null)?.replication_key_value;
    if (value === undefined) own[stream] = bookmark;
    else rewind[stream] = rewindTime(flag, path, stream, bookmark as Record<string, unknown>, warn);
  }
  return { state: { bookmarks: own }, rewind };
}

/** An SDK bookmark's time: an ISO 8601 time or date (midnight UTC) of the stream's replication key. */
function rewindTime(
  flag: string,
  path: string,
  stream: StreamName,
  bookmark: Record<string, unknown>,
  warn: (m: string) => void,
): string {
  const at = `${flag} ${path}: bookmarks.${stream}`;
  const { replicationKey } = STREAMS[stream];
  if (replicationKey === undefined) {
    warn(`${at}: ${stream} is FULL_TABLE, read whole every run: its replication_key_value changes nothing`);
    return new Date(0).toISOString();
  }
  if (bookmark.replication_key !== undefined && bookmark.replication_key !== replicationKey)
    throw new UsageError(`${at}.replication_key: ${stream}'s replication key is ${replicationKey}`);
  const value = bookmark.replication_key_value;
  const time =
    typeof value === 'string' ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value) : NaN;
  if (!/^\d{4}-\d{2}-\d{2}/.test(String(value)) || Number.isNaN(time))
    throw new UsageError(
      `${at}.replication_key_value: expected an ISO 8601 time (2025-01-01T00:00:00Z) or date, got ${JSON.stringify(value)}`,
    );
  return new Date(time).toISOString();
}
