import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { refuseSpecialFile } from '../lib/regular-file.js';
import { join } from 'node:path';
import { CliError, LocalFileError } from '../errors.js';
import type { CrashHook } from '../exporter/crash-points.js';
import { acquire, type ExportLock } from '../exporter/lock.js';
import type { ExportReporter } from '../exporter/run-summary.js';
import { stateFileStem } from '../exporter/state-key.js';
import { ExportStateStore } from '../exporter/state-store.js';
import type { ExportState } from '../exporter/state.js';
import { FieldLabels } from './field-labels.js';
import { indexRange, KeptBytes, SnapshotDamage, SnapshotReader } from './snapshot-file.js';
import { SnapshotIndex } from './snapshot-index.js';
import { RefreshCheckpoint, withCheckpoint } from './refresh-checkpoint.js';
import { exportSnapshot, type SnapshotDeps } from './snapshot-export.js';
export type { SnapshotDeps } from './snapshot-export.js';
import { readSnapshotRecord, writeSnapshotRecord, type SnapshotRecord } from './snapshot-record.js';

/** A snapshot holding more than twice as many lines as contacts (old versions) is refreshed whole. */
const COMPACT_RATIO = 2;
const COMPACT_MIN_LINES = 10_000;
/** A snapshot up to this size is kept in memory for the comparisons (about 200,000 contacts). */
const IN_MEMORY_BYTES = 64 * 2 ** 20;

/** The snapshot of an account's contacts, refreshed and indexed: what a sync compares a file with. */
export interface Snapshot {
  index: SnapshotIndex;
  reader: SnapshotReader;
  /** The fields that existed when the line at this byte offset was fetched, with their labels then. */
  fieldsAt(offset: number): FieldLabels;
  /** What the refresh did, for the summary. */
  refresh: RefreshStats;
  close(): void;
}

export interface RefreshStats {
  /** Contacts in the snapshot. */
  contacts: number;
  /** Rows and pages this run fetched (a full refresh: all of them). */
  rows: number;
  pages: number;
  full: boolean;
  /** Why the refresh was full, when it was not a first run: damage, compaction, --full-refresh-after. */
  reason?: string;
  /** When the snapshot last read the whole account (this run, when `full`). */
  fullAt: string;
  stateKey: string;
  path: string;
  elapsedMs: number;
}

/** Where a sync keeps its snapshot of one account: the export state key, the file and the record beside it, the run lock. */
function snapshotPaths(configDir: string, key: string): { dir: string; file: string; record: string; lock: string } {
  const dir = join(configDir, 'sync');
  const file = join(dir, `${stateFileStem(key)}.ndjson`);
  return { dir, file, record: `${file}.json`, lock: `${file}.lock` };
}

/** One sync per account at a time: the snapshot and what is sent from it belong to one run. */
export async function lockSync(configDir: string, key: string): Promise<ExportLock> {
  const paths = makeDir(configDir, key);
  return acquire(paths.lock, { what: `the contacts sync of ${key}`, rule: 'one sync per account at a time' });
}

/**
 * Brings the snapshot up to date and indexes it. A later run reads only what changed since the
 * saved cursor (the export's exactly-once protocol appends it to the file); the first run, a
 * damaged snapshot (the whole file's SHA-256, the export's own file checks, a line that is not a
 * contact) and a file mostly made of old versions are refreshed whole, with a note.
 */
export async function refreshSnapshot(
  deps: SnapshotDeps,
  key: string,
  fieldLabels: ReadonlyMap<string, string>,
  opts: RefreshOptions,
): Promise<Snapshot> {
  const started = deps.clock.now();
  const paths = makeDir(deps.stateDir.path, key);
  checkRegular(paths.file, 'sync snapshot');
  checkRegular(paths.record, 'sync snapshot record');
  const store = await ExportStateStore.open(deps.stateDir.path, deps.stateDir.where);
  // Why a run that could continue refreshes everything instead (said in a note; not for --full-refresh, which the user asked for).
  let reason: string | undefined;
  const prior = readState(store, key, (why) => (reason ??= why));
  const record =
    prior && !opts.full
      ? trustedRecord(readSnapshotRecord(paths.record), prior, paths.file, key, (why) => (reason ??= why))
      : undefined;
  const stale = opts.staleAfter;
  // The state's time, as `export state list` shows it (the record's for a state saved before it had one).
  const lastFull = record && (prior?.current.fullAt ?? record.fullAt);
  if (lastFull && stale && !(started - Date.parse(lastFull) <= stale.ms))
    reason ??= `the snapshot's last full refresh (${lastFull}) is older than --full-refresh-after ${stale.text}`;
  let full = opts.full || reason !== undefined || prior === undefined;
  let indexed =
    !full && record ? await verifiedPart(paths.file, record, deps.signal, (why) => (reason = why)) : undefined;
  if (!indexed) {
    full = true;
    indexed = nothingIndexed();
    if (reason) deps.notices.info(`note: ${reason}: rebuilding it from a full refresh`);
  }
  ensureFile(paths.file);
  const fullAt = (isFull: boolean) => (isFull || !record ? new Date(started).toISOString() : record.fullAt);
  let checkpoint: RefreshCheckpoint | undefined;
  // Each export writes the record as it commits; one that starts again whole starts from nothing indexed.
  const attempt = (isFull: boolean): ExportReporter => {
    if (isFull && !full) indexed = nothingIndexed();
    checkpoint = checkpointOf(
      { deps, store, key, file: paths.file, record: paths.record, fullAt: fullAt(isFull) },
      indexed!,
      fieldLabels,
    );
    return withCheckpoint(deps.reporter, checkpoint);
  };
  const exported = await exportSnapshot(deps, key, paths.file, full, opts.crash, attempt);
  full = exported.full;
  reason = exported.reason ?? reason;
  const committed = committedBytes(store, key);
  if (committed > IN_MEMORY_BYTES) indexed.kept = new KeptBytes(0);
  const { index, digest, kept, segments } = indexed;
  await indexRefreshed(paths.file, indexed, checkpoint!.hashed, committed, deps.signal);
  writeSnapshotRecord(paths.record, recordOf(key, indexed, committed, digest.digest('hex'), fullAt(full)));
  const reader = new SnapshotReader(paths.file, index, kept.whole());
  const refresh = {
    contacts: index.size,
    rows: exported.run.rows,
    pages: exported.run.pages,
    full,
    ...(reason ? { reason } : {}),
    fullAt: fullAt(full),
    stateKey: key,
    path: paths.file,
    elapsedMs: deps.clock.now() - started,
  };
  return { index, reader, fieldsAt: fieldsAt(segments), refresh, close: () => reader.close() };
}

/** How a refresh runs: whole (--full-refresh), or whole once the last full one is older than `staleAfter` (--full-refresh-after). */
interface RefreshOptions {
  full: boolean;
  staleAfter?: { ms: number; text: string };
  crash?: CrashHook;
}

/** What is indexed of the snapshot file so far: its first `verified` bytes, their digest and field keys. */
interface Indexed {
  index: SnapshotIndex;
  digest: Hash;
  // Kept only when the whole file will fit: a large one is never held, even in part.
  kept: KeptBytes;
  segments: SnapshotRecord['fields'];
  verified: number;
}

const nothingIndexed = (): Indexed => ({
  index: new SnapshotIndex(),
  digest: createHash('sha256'),
  kept: new KeptBytes(IN_MEMORY_BYTES),
  segments: [],
  verified: 0,
});

/** The part of the file the record vouches for, indexed and checked against its SHA-256; undefined (and why) when it is damaged. */
async function verifiedPart(
  file: string,
  record: SnapshotRecord,
  signal: AbortSignal,
  damaged: (why: string) => void,
): Promise<Indexed | undefined> {
  const indexed: Indexed = {
    ...nothingIndexed(),
    kept: new KeptBytes(record.bytes <= IN_MEMORY_BYTES ? IN_MEMORY_BYTES : 0),
  };
  try {
    await indexRange(file, 0, record.bytes, indexed.index, indexed.digest, signal, indexed.kept);
    if (indexed.digest.copy().digest('hex') !== record.sha256)
      throw new SnapshotDamage('its SHA-256 is not the one recorded when it was written');
  } catch (err) {
    if (!(err instanceof SnapshotDamage)) throw err;
    damaged(`the snapshot ${file} is damaged (${err.message})`);
    return undefined;
  }
  return { ...indexed, verified: record.bytes, segments: record.fields };
}

/** Where a refresh's record goes, and what it says of the refresh. */
interface RecordPlace {
  deps: SnapshotDeps;
  store: ExportStateStore;
  key: string;
  file: string;
  record: string;
  fullAt: string;
}

/** The checkpoint of a refresh into `indexed` (src/sync/refresh-checkpoint.ts): its lines are keyed by the labels in force now. */
function checkpointOf(at: RecordPlace, indexed: Indexed, fieldLabels: ReadonlyMap<string, string>): RefreshCheckpoint {
  indexed.segments = withLabels(indexed.segments, indexed.verified, fieldLabels);
  return new RefreshCheckpoint({
    path: at.file,
    digest: indexed.digest,
    from: indexed.verified,
    now: () => at.deps.clock.now(),
    committed: () => committedBytes(at.store, at.key),
    write: (bytes, sha256) => writeSnapshotRecord(at.record, recordOf(at.key, indexed, bytes, sha256, at.fullAt)),
  });
}

function recordOf(key: string, indexed: Indexed, bytes: number, sha256: string, fullAt: string): SnapshotRecord {
  return {
    version: 2,
    key,
    bytes,
    sha256,
    lines: indexed.index.lines,
    contacts: indexed.index.size,
    fullAt,
    fields: indexed.segments,
  };
}

/**
 * Indexes what the refresh committed after the verified part. The bytes up to `hashed` are in the
 * digest already (the checkpoints hashed them); lines a killed run committed after the record
 * was written are the export's, checked by its protocol.
 */
async function indexRefreshed(
  file: string,
  indexed: Indexed,
  hashed: number,
  committed: number,
  signal: AbortSignal,
): Promise<void> {
  try {
    await indexRange(file, indexed.verified, hashed, indexed.index, undefined, signal, indexed.kept);
    await indexRange(file, hashed, committed, indexed.index, indexed.digest, signal, indexed.kept);
  } catch (err) {
    if (!(err instanceof SnapshotDamage)) throw err;
    throw new LocalFileError(
      'sync snapshot',
      file,
      'EIO',
      `the refreshed snapshot does not read back (${err.message}); run again with --full-refresh`,
    );
  }
}

/** The segments with the fields in force now, from byte `from` on: the lines this refresh fetches are keyed by their labels. */
function withLabels(
  segments: SnapshotRecord['fields'],
  from: number,
  fieldLabels: ReadonlyMap<string, string>,
): SnapshotRecord['fields'] {
  const keys = [...fieldLabels.keys()].sort();
  const labels = keys.map((k) => fieldLabels.get(k)!);
  const last = segments.at(-1);
  return last && JSON.stringify([last.keys, last.labels]) === JSON.stringify([keys, labels])
    ? segments
    : [...segments, { from, keys, labels }];
}

/** The fields that existed when the line at a byte offset was fetched, with their labels then. */
function fieldsAt(segments: SnapshotRecord['fields']): (offset: number) => FieldLabels {
  const sets = segments.map((s) => ({
    from: s.from,
    fields: new FieldLabels(new Map(s.keys.map((k, i) => [k, s.labels[i]]))),
  }));
  return (offset) => {
    let found = sets[0].fields;
    for (const s of sets) if (s.from <= offset) found = s.fields;
    return found;
  };
}

function makeDir(configDir: string, key: string): ReturnType<typeof snapshotPaths> {
  const paths = snapshotPaths(configDir, key);
  try {
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw LocalFileError.from(err, 'sync directory', paths.dir) ?? err;
  }
  return paths;
}

/** A FIFO, a device, a directory or a symlink where the snapshot belongs is refused (exit 8, `... is a FIFO, not a regular file: remove it`), never opened. */
function checkRegular(path: string, what: string): void {
  try {
    refuseSpecialFile(path);
  } catch (err) {
    throw LocalFileError.from(err, what, path) ?? err;
  }
}

/** The snapshot file, made private (0600) before the export writes into it. */
function ensureFile(path: string): void {
  try {
    closeSync(
      openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600),
    );
  } catch (err) {
    throw LocalFileError.from(err, 'sync snapshot', path) ?? err;
  }
}

function readState(store: ExportStateStore, key: string, damaged: (why: string) => void): ExportState | undefined {
  try {
    return store.read(key);
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'state_corrupt') throw err;
    damaged(`the snapshot's state is damaged (${err.message})`);
    return undefined;
  }
}

/** The record, when it vouches for a prefix of what the state committed to this file; else why it cannot. */
function trustedRecord(
  record: SnapshotRecord | undefined,
  prior: ExportState,
  file: string,
  key: string,
  untrusted: (why: string) => void,
): SnapshotRecord | undefined {
  const out = prior.current.output;
  if (out.kind !== 'file' || out.path !== file) untrusted(`export state "${key}" does not write the snapshot file`);
  else if (!record || record.key !== key) untrusted(`the snapshot ${file} has no record of its checksum`);
  else if (record.bytes > out.bytes) untrusted(`the snapshot ${file} is shorter than its record says`);
  else if (record.lines > COMPACT_RATIO * record.contacts + COMPACT_MIN_LINES)
    untrusted(`the snapshot holds ${record.lines} lines for ${record.contacts} contacts (old versions)`);
  else return record;
  return undefined;
}

function committedBytes(store: ExportStateStore, key: string): number {
  const out = store.read(key)?.current.output;
  return out?.kind === 'file' ? out.bytes : 0;
}
