import { truncateSync } from 'node:fs';
import type { Clock } from '../clock.js';
import { LocalFileError } from '../errors.js';
import type { ConfigDirWhere } from '../config/paths.js';
import { acquire, type ExportLock } from '../exporter/lock.js';
import type { Notices } from '../output/notices.js';
import { baseText, journalStart, writeKept, type LedgerEntry, type LedgerRecord, type RunInfo } from './ledger-file.js';
import type { LedgerJob } from './ledger-job.js';
import { ledgerPaths, moveAside, readLedger, type LedgerPaths } from './ledger-state.js';
import { JournalWriter } from './journal.js';

/** What a run of the syncs that read their ledger for what they sent does without one (lost or damaged). */
const WITHOUT = 'every row is sent and nothing is removed this run';

/** What the ledger takes from the command around it. */
export interface LedgerDeps {
  /** The config directory: the ledger lives in its `ledger/`, beside the export states. */
  stateDir: { path: string; where: ConfigDirWhere };
  notices: Notices;
  clock: Clock;
}

/**
 * A job's ledger, opened for one run (docs/ledger.md): its entries by key, whether they can be
 * trusted (a ledger lost or damaged sends every row again and removes nothing this run), and,
 * for a run that sends, the journal each outcome is appended to and the lock that keeps a second
 * run of the job out (exit 7).
 */
export class Ledger {
  private journal: JournalWriter | undefined;
  /** The contacts (ids) the job had added when the run started: what --max-removals' default is a share of. */
  readonly members: number;

  private constructor(
    readonly job: LedgerJob,
    readonly entries: Map<string, LedgerEntry>,
    /** False when the ledger was missing or damaged at the start: nothing is removed this run. */
    readonly trusted: boolean,
    private readonly paths: LedgerPaths,
    private readonly lock: ExportLock | undefined,
    last: string | undefined,
  ) {
    if (lock && last !== undefined) this.journal = JournalWriter.open(paths.journal, last);
    let members = 0;
    for (const entry of entries.values()) if (entry.id !== undefined) members++;
    this.members = members;
  }

  /**
   * Opens the ledger of `job`. `write`: this run sends and records (the lock is taken, a damaged
   * ledger is moved aside and a new one started); otherwise it is only read (--plan, --dry-run).
   * `without`: what a run does without a ledger (lost or damaged), for the note that says so.
   */
  static async open(deps: LedgerDeps, job: LedgerJob, write: boolean, without = WITHOUT): Promise<Ledger> {
    const paths = ledgerPaths(deps.stateDir, job.key, write);
    const lock = write
      ? await acquire(paths.lock, { what: `the ledger of ${job.key}`, rule: 'one run per ledger job at a time' })
      : undefined;
    try {
      return Ledger.load(deps, job, paths, lock, without);
    } catch (err) {
      await lock?.release();
      throw err;
    }
  }

  private static load(
    deps: LedgerDeps,
    job: LedgerJob,
    paths: LedgerPaths,
    lock: ExportLock | undefined,
    without: string,
  ): Ledger {
    const state = readLedger(paths, job.key);
    if (state.kind === 'ok') {
      // A line a kill cut short is no outcome: cut off, so that the lines appended after it read.
      if (lock && state.torn && state.last !== undefined) cutJournal(paths.journal, state.journalBytes);
      // A journal the base holds already (a kill between the two writes of a compaction): a new one is started.
      const last = state.last ?? (lock ? startJournal(paths, job, state.entries, deps.clock, state.lastRun) : '');
      return new Ledger(job, state.entries, true, paths, lock, last);
    }
    const why =
      state.kind === 'missing'
        ? `no ledger of ${job.key} yet (its first run, or the ledger was removed)`
        : `the ledger of ${job.key} is damaged (${state.why})`;
    const kept = state.kind === 'damaged' && lock ? `; the damaged files are kept beside it as *.damaged` : '';
    deps.notices.info(`note: ${why}: ${without}${kept}`);
    if (state.kind === 'damaged' && lock) moveAside(paths);
    const entries = new Map<string, LedgerEntry>();
    const last = lock ? startJournal(paths, job, entries, deps.clock, null) : undefined;
    return new Ledger(job, entries, false, paths, lock, last);
  }

  /** Applies the records to the entries and, in a run that sends, appends them to the journal (resolves once on disk). */
  async record(records: readonly LedgerRecord[]): Promise<void> {
    for (const r of records) {
      if (r[0] === 'put') {
        const [, key, digest, state, id, code] = r;
        this.entries.set(key, { digest, state, ...(id === null ? {} : { id }), ...(code === null ? {} : { code }) });
      } else if (r[0] === 'del') this.entries.delete(r[1]);
    }
    await this.journal?.append(records);
  }

  /**
   * Ends the run: its summary recorded, the journal compacted into a new sealed base and a new
   * journal started (each written whole: temp, fsync, rename), the lock released. A run that
   * only read the ledger writes nothing.
   */
  async finish(run: RunInfo, clock: Clock): Promise<void> {
    try {
      if (!this.journal) return;
      await this.journal.append([['run', run]]);
      await this.journal.close();
      const compacted = this.journal.last;
      this.journal = undefined;
      startJournal(this.paths, this.job, this.entries, clock, run, compacted);
    } finally {
      await this.close();
    }
  }

  /** Releases the journal and the lock without compacting (the next run reads the journal). */
  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = undefined;
    await this.lock?.release();
  }
}

function cutJournal(path: string, bytes: number): void {
  try {
    truncateSync(path, bytes);
  } catch (err) {
    throw LocalFileError.from(err, 'ledger journal', path) ?? err;
  }
}

/** Writes a sealed base of `entries`, then a journal that continues it; returns the journal's chain hash. */
function startJournal(
  paths: LedgerPaths,
  job: LedgerJob,
  entries: ReadonlyMap<string, LedgerEntry>,
  clock: Clock,
  lastRun: RunInfo | null,
  compacted: string | null = null,
): string {
  const writtenAt = new Date(clock.now()).toISOString();
  const base = baseText({ cnvLedger: 1, job, compacted, writtenAt, lastRun }, entries);
  writeKept(paths.base, base.text);
  const journal = journalStart(base.seal, job.key);
  writeKept(paths.journal, journal.text);
  return journal.hash;
}
