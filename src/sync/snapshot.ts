import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { refuseSpecialFile } from '../lib/regular-file.js';
import { join } from 'node:path';
import { CliError, LocalFileError } from '../errors.js';
import type { CrashHook } from '../exporter/crash-points.js';
import { acquire, type ExportLock } from '../exporter/lock.js';
import { stateFileStem } from '../exporter/state-key.js';
import { ExportStateStore } from '../exporter/state-store.js';
import type { ExportState } from '../exporter/export-state.js';
import { FieldLabels } from './field-labels.js';
import { indexRange, KeptBytes, SnapshotDamage, SnapshotReader } from './snapshot-file.js';
import { SnapshotIndex } from './snapshot-index.js';
import { exportSnapshot, type SnapshotDeps } from './snapshot-export.js';
export type { SnapshotDeps } from './snapshot-export.js';
import {
  readSnapshotRecord,
  RefreshCheckpoint,
  sealMatches,
  writeSnapshotRecord,
  type SnapshotRecord,
  type UnsealedRecord,
} from './snapshot-seal.js';

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
 * damaged snapshot (its seal over the rows and the labels, src/sync/snapshot-seal.ts; the
 * export's own file checks; a line that is not a contact) and a file mostly made of old versions
 * are refreshed whole, with a note.
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
  const at: RefreshPlace = { deps, store, key, paths, fieldLabels, started, crash: opts.crash };
  let start = await startingPoint(at, opts);
  ensureFile(paths.file);
  let done = await exportFrom(at, start);
  if ('again' in done) {
    start = noted(deps, wholeStart(started, done.again));
    done = await exportFrom(at, start);
    // A whole export throws what stops it: it never asks to run again.
    if ('again' in done) throw new Error(`a full refresh asked to run again: ${done.again}`);
  }
  const committed = committedBytes(store, key);
  const indexed = { ...done.indexed, kept: committed > IN_MEMORY_BYTES ? new KeptBytes(0) : done.indexed.kept };
  await indexRefreshed(paths.file, indexed, done.hashed, committed, deps.signal);
  writeSnapshotRecord(paths.record, recordOf(key, indexed, committed, start.fullAt), indexed.digest);
  const reader = new SnapshotReader(paths.file, indexed.index, indexed.kept.whole());
  const refresh = {
    contacts: indexed.index.size,
    rows: done.rows,
    pages: done.pages,
    full: start.full,
    ...(start.reason ? { reason: start.reason } : {}),
    fullAt: start.fullAt,
    stateKey: key,
    path: paths.file,
    elapsedMs: deps.clock.now() - started,
  };
  return { index: indexed.index, reader, fieldsAt: fieldsAt(indexed.segments), refresh, close: () => reader.close() };
}

/** How a refresh runs: whole (--full-refresh), or whole once the last full one is older than `staleAfter` (--full-refresh-after). */
interface RefreshOptions {
  full: boolean;
  staleAfter?: { ms: number; text: string };
  crash?: CrashHook;
}

/** What one refresh works on: the snapshot's files and state, the labels in force now, when it started. */
interface RefreshPlace {
  deps: SnapshotDeps;
  store: ExportStateStore;
  key: string;
  paths: ReturnType<typeof snapshotPaths>;
  fieldLabels: ReadonlyMap<string, string>;
  started: number;
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

/** Where an export of the snapshot starts: whole or from the sealed part, why whole (for the note), the last full refresh's time. */
interface Start {
  full: boolean;
  indexed: Indexed;
  reason?: string;
  fullAt: string;
}

const nothingIndexed = (): Indexed => ({
  index: new SnapshotIndex(),
  digest: createHash('sha256'),
  kept: new KeptBytes(IN_MEMORY_BYTES),
  segments: [],
  verified: 0,
});

const wholeStart = (started: number, reason?: string): Start => ({
  full: true,
  indexed: nothingIndexed(),
  ...(reason ? { reason } : {}),
  fullAt: new Date(started).toISOString(),
});

/**
 * Where this refresh starts: from the part of the file the sealed record vouches for, or whole
 * (the first run, --full-refresh, or why it cannot continue, said in a note: not for
 * --full-refresh, which the user asked for).
 */
async function startingPoint(at: RefreshPlace, opts: RefreshOptions): Promise<Start> {
  const { deps, paths, key } = at;
  const prior = readState(at.store, key);
  if (prior === undefined) return wholeStart(at.started);
  if ('damaged' in prior) return noted(deps, wholeStart(at.started, prior.damaged));
  if (opts.full) return wholeStart(at.started);
  const record = trustedRecord(readSnapshotRecord(paths.record), prior.state, paths.file, key);
  if ('untrusted' in record) return noted(deps, wholeStart(at.started, record.untrusted));
  // The state's time, as `export state list` shows it (the record's for a state saved before it had one).
  const lastFull = prior.state.current.fullAt ?? record.fullAt;
  const stale = opts.staleAfter;
  if (stale && !(at.started - Date.parse(lastFull) <= stale.ms)) {
    const why = `the snapshot's last full refresh (${lastFull}) is older than --full-refresh-after ${stale.text}`;
    return noted(deps, wholeStart(at.started, why));
  }
  const indexed = await verifiedPart(paths.file, record, deps.signal);
  if ('damaged' in indexed) return noted(deps, wholeStart(at.started, indexed.damaged));
  return { full: false, indexed, fullAt: record.fullAt };
}

function noted(deps: SnapshotDeps, start: Start): Start {
  deps.notices.info(`note: ${start.reason}: rebuilding it from a full refresh`);
  return start;
}

/** The part of the file the record vouches for, indexed and checked against its seal; or why it is damaged. */
async function verifiedPart(
  file: string,
  record: SnapshotRecord,
  signal: AbortSignal,
): Promise<Indexed | { damaged: string }> {
  const indexed: Indexed = {
    ...nothingIndexed(),
    kept: new KeptBytes(record.bytes <= IN_MEMORY_BYTES ? IN_MEMORY_BYTES : 0),
  };
  try {
    await indexRange(file, 0, record.bytes, indexed.index, indexed.digest, signal, indexed.kept);
    if (!sealMatches(record, indexed.digest))
      throw new SnapshotDamage('its SHA-256 is not the one recorded when it was written');
  } catch (err) {
    if (!(err instanceof SnapshotDamage)) throw err;
    return { damaged: `the snapshot ${file} is damaged (${err.message})` };
  }
  return { ...indexed, verified: record.bytes, segments: record.fields };
}

/**
 * One export into the snapshot from `start`, its record sealed as it commits (src/sync/snapshot-seal.ts):
 * what it fetched, the indexed part it continues (its lines keyed by the labels in force now) and
 * how far the checkpoints hashed; or why it must run again whole.
 */
async function exportFrom(
  at: RefreshPlace,
  start: Start,
): Promise<{ rows: number; pages: number; indexed: Indexed; hashed: number } | { again: string }> {
  const { indexed: before } = start;
  const indexed = { ...before, segments: withLabels(before.segments, before.verified, at.fieldLabels) };
  const checkpoint = new RefreshCheckpoint({
    path: at.paths.file,
    recordPath: at.paths.record,
    digest: indexed.digest,
    from: indexed.verified,
    now: () => at.deps.clock.now(),
    committed: () => committedBytes(at.store, at.key),
    record: (bytes) => recordOf(at.key, indexed, bytes, start.fullAt),
  });
  const reporter = checkpoint.reporting(at.deps.reporter);
  const run = await exportSnapshot({ ...at.deps, reporter }, at.key, at.paths.file, start.full, at.crash);
  return 'again' in run ? run : { ...run, indexed, hashed: checkpoint.hashed };
}

function recordOf(key: string, indexed: Indexed, bytes: number, fullAt: string): UnsealedRecord {
  return { key, bytes, lines: indexed.index.lines, contacts: indexed.index.size, fullAt, fields: indexed.segments };
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

/** The snapshot's export state: none, read, or why it is damaged. */
function readState(store: ExportStateStore, key: string): { state: ExportState } | { damaged: string } | undefined {
  try {
    const state = store.read(key);
    return state && { state };
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'state_corrupt') throw err;
    return { damaged: `the snapshot's state is damaged (${err.message})` };
  }
}

/** The record, when it vouches for a prefix of what the state committed to this file; else why it cannot. */
function trustedRecord(
  record: SnapshotRecord | undefined,
  prior: ExportState,
  file: string,
  key: string,
): SnapshotRecord | { untrusted: string } {
  const out = prior.current.output;
  if (out.kind !== 'file' || out.path !== file)
    return { untrusted: `export state "${key}" does not write the snapshot file` };
  if (!record || record.key !== key) return { untrusted: `the snapshot ${file} has no record of its checksum` };
  if (record.bytes > out.bytes) return { untrusted: `the snapshot ${file} is shorter than its record says` };
  if (record.lines > COMPACT_RATIO * record.contacts + COMPACT_MIN_LINES)
    return { untrusted: `the snapshot holds ${record.lines} lines for ${record.contacts} contacts (old versions)` };
  return record;
}

function committedBytes(store: ExportStateStore, key: string): number {
  const out = store.read(key)?.current.output;
  return out?.kind === 'file' ? out.bytes : 0;
}
