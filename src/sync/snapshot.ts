import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import { CliError, LocalFileError } from '../errors.js';
import type { CrashHook } from '../exporter/crash-points.js';
import type { ExportDeps } from '../exporter/export-deps.js';
import { withExportRun, type ExportRun } from '../exporter/export-run.js';
import type { ExportRunOptions } from '../exporter/export-run-options.js';
import { acquire, type ExportLock } from '../exporter/lock.js';
import { pageSource, stuckCursor } from '../exporter/page-source.js';
import type { ExportReporter } from '../exporter/run-summary.js';
import { stateFileStem } from '../exporter/state-key.js';
import { ExportStateStore } from '../exporter/state-store.js';
import type { ExportState } from '../exporter/export-state.js';
import { refuseSpecialFile } from '../lib/regular-file.js';
import { FieldLabels } from './field-labels.js';
import { readSnapshot, SnapshotBytes, SnapshotDamage, type SnapshotReader } from './snapshot-file.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { sealedOf, type Sealed, type Segment } from './snapshot-seal.js';

/** A snapshot holding more than twice as many lines as contacts (old versions) is refreshed whole. */
const COMPACT_RATIO = 2;
const COMPACT_MIN_LINES = 10_000;

/** What a refresh takes: the export's deps, and how to show its pages. */
export interface SnapshotDeps extends ExportDeps {
  reporter: ExportReporter;
}

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
  elapsedMs: number;
}

/** The snapshot's file, which its export state writes: `<config dir>/sync/<key>.ndjson` (the directory made). */
export function snapshotFile(configDir: string, key: string): string {
  const dir = join(configDir, 'sync');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw LocalFileError.from(err, 'sync directory', dir) ?? err;
  }
  return join(dir, `${stateFileStem(key)}.ndjson`);
}

/** One sync per account at a time: the snapshot and what is sent from it belong to one run (a lock beside the snapshot). */
export async function lockSync(configDir: string, key: string): Promise<ExportLock> {
  const lock = `${snapshotFile(configDir, key)}.lock`;
  return acquire(lock, { what: `the contacts sync of ${key}`, rule: 'one sync per account at a time' });
}

/**
 * What a refresh is asked: the snapshot's state key, the CONTACT fields as they are now (by key),
 * whole (--full-refresh), or whole once the last full one is older than `staleAfter` (--full-refresh-after).
 */
interface RefreshOptions {
  key: string;
  fields: ReadonlyMap<string, { label: string }>;
  /** The fields were read (not a list the account refused): the pages are read under them, and they are read again after each. */
  watched: boolean;
  full: boolean;
  staleAfter?: { ms: number; text: string };
  crash?: CrashHook;
}

/** One refresh: what it is asked, its deps, the snapshot's file. */
interface RefreshPlace extends RefreshOptions {
  deps: SnapshotDeps;
  file: string;
}

/** Where a refresh starts: whole (why, for the note), or after the sealed part, taken in already; the fields of each part. */
interface Start {
  full: boolean;
  bytes: SnapshotBytes;
  segments: Segment[];
  reason?: string;
}

/** A whole refresh; one with a `reason` says it in a note (not --full-refresh, which the user asked for). */
function whole(at: RefreshPlace, reason?: string): Start {
  if (reason) at.deps.notices.info(`note: ${reason}: rebuilding it from a full refresh`);
  return {
    full: true,
    bytes: new SnapshotBytes(),
    segments: withLabels([], 0, at.fields),
    ...(reason ? { reason } : {}),
  };
}

/**
 * Brings the snapshot up to date and indexes it. A later run reads only what changed since the
 * saved cursor; the first run, a damaged snapshot (its seal over the rows and the labels,
 * src/sync/snapshot-seal.ts; the export's own file checks; a line that is not a contact) and a
 * file mostly made of old versions are refreshed whole, with a note. The pages come as the
 * export's protocol hands them out, each indexed and digested as it arrives, then appended with
 * the seal of everything so far: nothing is read back.
 */
export async function refreshSnapshot(deps: SnapshotDeps, opts: RefreshOptions): Promise<Snapshot> {
  const started = deps.clock.now();
  const file = snapshotFile(deps.stateDir.path, opts.key);
  ensureFile(file);
  const at: RefreshPlace = { ...opts, deps, file };
  let start = await startingPoint(at, started);
  let done = await exportInto(at, start);
  if ('again' in done) {
    start = whole(at, done.again);
    done = await exportInto(at, start);
    // A whole export throws what stops it: it never asks to run again.
    if ('again' in done) throw new Error(`a full refresh asked to run again: ${done.again}`);
  }
  const { bytes, segments, full, reason } = start;
  const reader = bytes.reader(file);
  const refresh = { contacts: bytes.index.size, ...done, full, ...(reason ? { reason } : {}), stateKey: opts.key };
  const stats = { ...refresh, elapsedMs: deps.clock.now() - started };
  return { index: bytes.index, reader, fieldsAt: fieldsAt(segments), refresh: stats, close: () => reader.close() };
}

/**
 * Where this refresh starts: after the part of the file the state's seal vouches for (read,
 * indexed and checked against the seal), or whole (the first run, --full-refresh, or why it
 * cannot continue).
 */
async function startingPoint(at: RefreshPlace, started: number): Promise<Start> {
  const prior = await readState(at);
  if (prior === undefined) return whole(at);
  if ('damaged' in prior) return whole(at, prior.damaged);
  if (at.full) return whole(at);
  const { current } = prior.state;
  const sealed = sealedPart(prior.state, at.file);
  // Nothing committed yet (a first refresh killed before its first page): it starts again.
  if (sealed === undefined) return whole(at);
  if ('untrusted' in sealed) return whole(at, sealed.untrusted);
  const stale = at.staleAfter;
  if (stale && !(started - Date.parse(current.fullAt ?? '') <= stale.ms)) {
    const why = `the snapshot's last full refresh (${current.fullAt}) is older than --full-refresh-after ${stale.text}`;
    return whole(at, why);
  }
  const bytes = new SnapshotBytes();
  try {
    await readSnapshot(at.file, current.output.kind === 'file' ? current.output.bytes : 0, bytes, at.deps.signal);
    if (!bytes.matches(at.key, current.seal!, sealed))
      throw new SnapshotDamage('its SHA-256 is not the one recorded when it was written');
  } catch (err) {
    if (!(err instanceof SnapshotDamage)) throw err;
    return whole(at, `the snapshot ${at.file} is damaged (${err.message})`);
  }
  return { full: false, bytes, segments: withLabels(sealed.fields, bytes.size, at.fields) };
}

/** The snapshot's export state: none, read, or why it is damaged. */
async function readState(at: RefreshPlace): Promise<{ state: ExportState } | { damaged: string } | undefined> {
  try {
    const state = (await ExportStateStore.open(at.deps.stateDir.path, at.deps.stateDir.where)).read(at.key);
    return state && { state };
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'state_corrupt') throw err;
    return { damaged: `the snapshot's state is damaged (${err.message})` };
  }
}

/** What the state's seal vouches for, when it vouches for this file; else why it cannot; undefined when nothing was committed. */
function sealedPart(state: ExportState, file: string): Sealed | { untrusted: string } | undefined {
  const out = state.current.output;
  if (out.kind !== 'file' || out.path !== file)
    return { untrusted: `export state "${state.key}" does not write the snapshot file` };
  const sealed = sealedOf(state.current.seal);
  if (!sealed)
    return out.bytes === 0 ? undefined : { untrusted: `the snapshot ${file} has no seal of its rows and labels` };
  if (sealed.lines > COMPACT_RATIO * sealed.contacts + COMPACT_MIN_LINES)
    return { untrusted: `the snapshot holds ${sealed.lines} lines for ${sealed.contacts} contacts (old versions)` };
  return sealed;
}

/** Errors of the export's file checks that mean the snapshot file is not the one its state wrote. */
const DAMAGE_CODES = new Set([
  'file_replaced',
  'file_changed',
  'file_shorter_than_committed',
  'file_not_empty',
  'state_corrupt',
]);

/**
 * One export into the snapshot from `start`, under the export's protocol (lock, state, file
 * checks): its pages handed over as the tap takes them, each taken into the snapshot's bytes, then
 * appended with the seal of all of them (ExportRun.append: bytes, cursor, identities and seal in
 * one commit). Or why it must run again whole (the snapshot is a cache): a continuing run whose
 * file the export's checks refuse, or whose saved cursor the server refuses (`invalid_cursor`:
 * restarted, reset). A full run's errors are thrown.
 */
async function exportInto(
  at: RefreshPlace,
  start: Start,
): Promise<{ rows: number; pages: number; fullAt: string } | { again: string }> {
  const { bytes, full } = start;
  // Contacts as NDJSON rows exactly as sent (no preamble, no compression), in the largest pages.
  const options: ExportRunOptions = {
    kind: 'contacts',
    out: at.file,
    format: 'ndjson',
    limit: EXPORT_PAGE_LIMITS.contacts.max,
    full,
    noState: false,
    stateKey: at.key,
    deferCommit: false,
    bom: false,
    excelSafe: false,
    crash: at.crash,
    // The pages are read under the fields the sync read, read again after each page.
    ...(at.watched ? { fields: [...at.fields].map(([key, { label }]) => ({ key, label })) } : {}),
  };
  // The export position's: when its last full read began.
  let fullAt = '';
  const loop = async (run: ExportRun): Promise<void> => {
    fullAt = run.start.fullAt ?? new Date(at.deps.clock.now()).toISOString();
    const checkHeap = at.deps.holdHeap?.() ?? (() => {});
    const source = pageSource({
      fetch: run.pages(run.plan.target, run.label),
      start: run.start,
      label: run.label,
      signal: run.signal,
      limit: () => options.limit,
      prefetch: () => true,
      stuck: (n) => stuckCursor(undefined, n, 'try again later; if it persists, report it to the API provider'),
      // Labels changed while a page was read: it is read again, and the lines from here on are
      // keyed by the new labels (a part of the snapshot of its own).
      trust:
        run.trust &&
        (async (page) => {
          if (await run.trust!(page)) return true;
          start.segments = withLabels(start.segments, bytes.size, byKey(run.fields()!));
          return false;
        }),
    });
    for await (const { page, step } of source) {
      for (const piece of page.pieces) bytes.add(piece);
      await run.append(page, step, bytes.seal(at.key, start.segments));
      checkHeap();
      if (step.last) {
        run.summary.status = 'complete';
        run.summary.moreRemains = false;
        return;
      }
    }
    run.summary.status = 'stopped';
  };
  try {
    const summary = await withExportRun(at.deps, options, at.deps.reporter, {}, loop);
    return { rows: summary.rows, pages: summary.pages, fullAt };
  } catch (err) {
    if (full || !(err instanceof CliError) || !(DAMAGE_CODES.has(err.code) || err.code === 'invalid_cursor'))
      throw syncHint(err, at.key);
    return {
      again:
        err.code === 'invalid_cursor'
          ? `the server refused the snapshot's saved cursor (invalid_cursor: restarted, reset, or the cursor expired)`
          : `the snapshot ${at.file} is not the file its state wrote (${err.code})`,
    };
  }
}

/** The flags of `cnv export` that `contacts sync` lacks: a hint naming only sync's own (or global) flags stays as it is. */
const EXPORT_ONLY_FLAGS = (
  'bom columns compress defer-commit excel-safe fields-by full limit max-pages no-state null-as ' +
  'out out-dir run since state-key type until'
).split(' ');
const EXPORT_ONLY_FLAG = new RegExp(`(^|[^\\w-])--(${EXPORT_ONLY_FLAGS.join('|')})(?![\\w-])`);

/**
 * An export error as `contacts sync` says it: the export's hints name the export's flags
 * (`--full`, `--out`, `--state-key`), which sync does not have; the snapshot is a cache, so the
 * way on is always to rebuild it.
 */
function syncHint(err: unknown, key: string): unknown {
  if (!(err instanceof CliError) || !err.hint || !EXPORT_ONLY_FLAG.test(err.hint)) return err;
  // The same error (its class, code and exit code), with sync's way on.
  (err as { hint?: string }).hint =
    `the snapshot is a cache of the account: run again with --full-refresh to rebuild it (or \`cnv export state reset ${key} --yes\`)`;
  return err;
}

/** The segments with the fields in force now, from byte `from` on: the lines this refresh fetches are keyed by their labels. */
function withLabels(segments: Segment[], from: number, fields: RefreshOptions['fields']): Segment[] {
  const keys = [...fields.keys()].sort();
  const labels = keys.map((k) => fields.get(k)!.label);
  const last = segments.at(-1);
  if (last && JSON.stringify([last.keys, last.labels]) === JSON.stringify([keys, labels])) return segments;
  // A part that holds no line yet (its page read again under other labels) is replaced.
  return [...(last?.from === from ? segments.slice(0, -1) : segments), { from, keys, labels }];
}

/** A field list as the refresh keeps it: label by key. */
function byKey(fields: ReadonlyArray<{ key: string; label: string }>): RefreshOptions['fields'] {
  return new Map(fields.map((f) => [f.key, { label: f.label }]));
}

/** The fields that existed when the line at a byte offset was fetched, with their labels then. */
function fieldsAt(segments: Segment[]): (offset: number) => FieldLabels {
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

/**
 * The snapshot file, made private (0600) before anything reads or writes it. A FIFO, a device, a
 * directory or a symlink there is refused (exit 8, `... is a FIFO, not a regular file: remove it`), never opened.
 */
function ensureFile(path: string): void {
  try {
    refuseSpecialFile(path);
    closeSync(
      openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600),
    );
  } catch (err) {
    throw LocalFileError.from(err, 'sync snapshot', path) ?? err;
  }
}
