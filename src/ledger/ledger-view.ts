import { CliError, ExitCode } from '../errors.js';
import { lockHolder } from '../files/owner-lock.js';
import { acquire } from '../exporter/lock.js';
import type { RunInfo } from './ledger-file.js';
import {
  ledgerFiles,
  ledgerPaths,
  readLedger,
  removeLedgerFiles,
  type LedgerPaths,
  type LedgerState,
} from './ledger-state.js';
import type { LedgerDeps } from './ledger.js';

/** A job's ledger as `cnv ledger list` and `show` print it. */
interface LedgerItem {
  job: string;
  command: string | null;
  target: string | null;
  keyColumn: string | null;
  /** ok, damaged (the next run starts it over), or running (a run holds its lock). */
  state: 'ok' | 'damaged' | 'running';
  /** Why it is damaged, or null. */
  damaged: string | null;
  /** Keys it holds. */
  entries: number;
  /** Entries holding the id the API answered: for a membership, the contacts the job added. */
  ids: number;
  /** Entries whose values the API refused (sent again once they change). */
  refused: number;
  /** Journal records since the base: a run killed (or running) before its end. */
  pending: number;
  lastRun: RunInfo | null;
  /** When the base was last written (the end of a run). */
  writtenAt: string | null;
}

/** Every ledger of the config directory, in file-name order. */
export function listLedgers(configDir: string): LedgerItem[] {
  return ledgerFiles(configDir).map((paths) => itemOf(paths, readLedger(paths)));
}

/** One job's ledger (by its key, as `cnv ledger list` shows it), and its entries; exit 5 when there is none. */
export function showLedger(
  deps: Pick<LedgerDeps, 'stateDir'>,
  jobKey: string,
): {
  item: LedgerItem;
  entries: Array<{ key: string; digest: string; state: string; id: string | null; code: string | null }>;
} {
  const paths = ledgerPaths(deps.stateDir, jobKey, false);
  const state = readLedger(paths, jobKey);
  if (state.kind === 'missing') throw notFound(jobKey);
  const entries =
    state.kind === 'ok'
      ? [...state.entries].map(([key, e]) => ({
          key,
          digest: e.digest,
          state: e.state,
          id: e.id ?? null,
          code: e.code ?? null,
        }))
      : [];
  return { item: itemOf(paths, state, jobKey), entries };
}

/** Removes a job's ledger under its lock (exit 7 while a run holds it); exit 5 when there is none. */
export async function resetLedger(deps: Pick<LedgerDeps, 'stateDir'>, jobKey: string): Promise<void> {
  const paths = ledgerPaths(deps.stateDir, jobKey, false);
  if (readLedger(paths).kind === 'missing') throw notFound(jobKey);
  const lock = await acquire(paths.lock, { what: `the ledger of ${jobKey}`, rule: 'one run per ledger job at a time' });
  try {
    if (!removeLedgerFiles(paths)) throw notFound(jobKey);
  } finally {
    await lock.release();
  }
}

function notFound(jobKey: string): CliError {
  return new CliError(`no ledger of job "${jobKey}" in this config directory`, {
    exitCode: ExitCode.notFound,
    code: 'ledger_not_found',
    hint: '`cnv ledger list` shows the jobs',
  });
}

function itemOf(paths: LedgerPaths, state: LedgerState, jobKey?: string): LedgerItem {
  const running = (() => {
    try {
      return lockHolder(paths.lock) !== undefined;
    } catch {
      return false;
    }
  })();
  if (state.kind !== 'ok') {
    const job = (state.kind === 'damaged' ? state.jobKey : undefined) ?? jobKey ?? paths.base;
    const damaged = state.kind === 'damaged' ? state.why : 'missing';
    return {
      job,
      command: null,
      target: null,
      keyColumn: null,
      state: 'damaged',
      damaged,
      entries: 0,
      ids: 0,
      refused: 0,
      pending: 0,
      lastRun: null,
      writtenAt: null,
    };
  }
  let ids = 0;
  let refused = 0;
  for (const e of state.entries.values()) {
    if (e.id !== undefined) ids++;
    if (e.state === 'refused') refused++;
  }
  return {
    job: state.job.key,
    command: state.job.command,
    target: state.job.target,
    keyColumn: state.job.keyColumn,
    state: running ? 'running' : 'ok',
    damaged: null,
    entries: state.entries.size,
    ids,
    refused,
    pending: state.pending,
    lastRun: state.lastRun,
    writtenAt: state.writtenAt,
  };
}
