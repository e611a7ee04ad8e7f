import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { configDirError, type ConfigDirWhere } from '../config/paths.js';
import { LocalFileError } from '../errors.js';
import {
  readBase,
  readJournal,
  type BaseHeader,
  type LedgerEntry,
  type LedgerRecord,
  type RunInfo,
} from './ledger-file.js';
import { ledgerStem, type LedgerJob } from './ledger-job.js';

/** Where a job's ledger lives: `<config dir>/ledger/<stem>.ledger` (the base), `.journal`, `.lock`. */
export interface LedgerPaths {
  dir: string;
  base: string;
  journal: string;
  lock: string;
}

/** The ledger directory of a config directory. */
function ledgerDir(configDir: string): string {
  return join(configDir, 'ledger');
}

/** The paths of a job's ledger; `make` creates the directory (mode 0700). */
export function ledgerPaths(
  config: { path: string; where: ConfigDirWhere },
  jobKey: string,
  make: boolean,
): LedgerPaths {
  const dir = ledgerDir(config.path);
  if (make) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw LocalFileError.from(err, 'ledger directory', dir) ?? configDirError(err, dir, config.where) ?? err;
    }
  }
  return pathsOf(dir, ledgerStem(jobKey));
}

function pathsOf(dir: string, stem: string): LedgerPaths {
  const base = join(dir, `${stem}.ledger`);
  return { dir, base, journal: join(dir, `${stem}.journal`), lock: join(dir, `${stem}.lock`) };
}

/** A ledger as its files hold it: the entries (the base's, then the journal's records applied), and how they stand. */
export type LedgerState =
  | { kind: 'missing' }
  | { kind: 'damaged'; why: string; jobKey?: string }
  | {
      kind: 'ok';
      job: LedgerJob;
      entries: Map<string, LedgerEntry>;
      /** The chain hash to append after; undefined when the journal was compacted already (a new one is due). */
      last: string | undefined;
      /** Records of the journal since the base (a run that was killed, or is running). */
      pending: number;
      /** A last journal line cut short (a kill in the middle of a write): the bytes before it are the journal's. */
      torn: boolean;
      journalBytes: number;
      lastRun: RunInfo | null;
      writtenAt: string;
    };

/**
 * Reads a ledger and checks it whole (docs/ledger.md, "Damage"): the base's seal, the journal's
 * chain from the base's seal, and that both name `jobKey`. A journal the base already holds (a
 * kill between the base's write and the journal's reset) is no damage.
 */
export function readLedger(paths: LedgerPaths, jobKey?: string): LedgerState {
  const base = readBase(paths.base);
  const journal = readJournal(paths.journal);
  if (base.kind === 'missing' && journal.kind === 'missing') return { kind: 'missing' };
  const named = base.kind === 'ok' ? base.header.job.key : journal.kind === 'ok' ? journal.jobKey : jobKey;
  const damaged = (why: string): LedgerState => ({ kind: 'damaged', why, ...(named ? { jobKey: named } : {}) });
  if (base.kind === 'damaged') return damaged(base.why);
  if (journal.kind === 'damaged') return damaged(journal.why);
  if (base.kind === 'missing') return damaged('its base is missing (only its journal is there)');
  if (journal.kind === 'missing') return damaged('its journal is missing');
  const header: BaseHeader = base.header;
  if ((jobKey !== undefined && header.job.key !== jobKey) || journal.jobKey !== header.job.key)
    return damaged('it names another job');
  const common = {
    kind: 'ok' as const,
    job: header.job,
    writtenAt: header.writtenAt,
    torn: journal.torn,
    journalBytes: journal.bytes,
  };
  if (journal.baseSeal !== base.seal) {
    if (header.compacted !== journal.last)
      return damaged('its journal does not continue its base (one of them was replaced)');
    return { ...common, entries: base.entries, last: undefined, pending: 0, lastRun: header.lastRun };
  }
  const lastRun = apply(base.entries, journal.records) ?? header.lastRun;
  return { ...common, entries: base.entries, last: journal.last, pending: journal.records.length, lastRun };
}

/** Applies a journal's records to the entries; returns the last run it records. */
function apply(entries: Map<string, LedgerEntry>, records: readonly LedgerRecord[]): RunInfo | undefined {
  let run: RunInfo | undefined;
  for (const r of records) {
    if (r[0] === 'put') entries.set(r[1], entryOf(r));
    else if (r[0] === 'del') entries.delete(r[1]);
    else run = r[1];
  }
  return run;
}

function entryOf(r: Extract<LedgerRecord, ['put', ...unknown[]]>): LedgerEntry {
  const [, , digest, state, id, code] = r;
  return { digest, state, ...(id === null ? {} : { id }), ...(code === null ? {} : { code }) };
}

/** Moves a damaged ledger's files aside (`<file>.damaged`, replacing an older one), for a person to look at. */
export function moveAside(paths: LedgerPaths): void {
  for (const file of [paths.base, paths.journal]) {
    try {
      renameSync(file, `${file}.damaged`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw LocalFileError.from(err, 'ledger', file) ?? err;
    }
  }
}

/** Removes a job's ledger files (the damaged copies too); true when there was one. */
export function removeLedgerFiles(paths: LedgerPaths): boolean {
  let found = false;
  for (const file of [paths.base, paths.journal, `${paths.base}.damaged`, `${paths.journal}.damaged`]) {
    try {
      rmSync(file);
      found = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw LocalFileError.from(err, 'ledger', file) ?? err;
    }
  }
  return found;
}

/** The ledgers of a config directory, by their files (a base or a journal): their paths, in name order. */
export function ledgerFiles(configDir: string): LedgerPaths[] {
  const dir = ledgerDir(configDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw LocalFileError.from(err, 'ledger directory', dir) ?? err;
  }
  const stems = new Set(names.flatMap((n) => /^(.+)\.(?:ledger|journal)$/.exec(n)?.[1] ?? []));
  return [...stems].sort().map((stem) => pathsOf(dir, stem));
}
