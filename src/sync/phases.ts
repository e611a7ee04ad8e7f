import type { FieldDefinition } from '../endpoints/fields.js';
import type { BatchDeps } from '../batch/batch-deps.js';
import { closeFile, openFile, checkFile, type OpenedFile } from '../batch/file-open.js';
import { sendFile, type FileBatchSpec } from '../batch/file-run.js';
import type { CrashHook } from '../exporter/crash-points.js';
import { accountIdentity } from '../config/account-identity.js';
import type { CommandResult } from '../output/render.js';
import type { RunMode } from '../batch/batch-run-options.js';
import type { LedgerDeps } from '../ledger/ledger.js';
import type { LedgerJob } from '../ledger/ledger-job.js';
import { settleColumns } from './column-memory.js';
import { ContactKeys } from './contact-keys.js';
import { decidedRows } from './decided-rows.js';
import type { PlanOutput } from './plan-output.js';
import { lockSync, refreshSnapshot, type SnapshotDeps } from './snapshot.js';
import { discardUncommittedSnapshot } from './uncommitted-snapshot.js';

/** How a sync runs, beyond the contacts file run it decides. */
interface ContactsSyncOptions {
  /** The snapshot's export state key (`syncStateKey`). */
  key: string;
  /** --full-refresh: read the whole account again. */
  fullRefresh: boolean;
  /** --full-refresh-after: read the whole account again once the last full refresh is older than this. */
  staleAfter?: { ms: number; text: string };
  /** --exit-code: a run that found differences exits 9. */
  exitCode: boolean;
  /** --plan: where the plan goes (nothing is sent). */
  plan?: PlanOutput;
  /** Test-only kill points of the snapshot's export (CNV_TEST_CRASH_AT). */
  crash?: CrashHook;
  /** --accept-columns: a column that resolves otherwise than at the last sync of the file is sent where it resolves now. */
  acceptColumns: boolean;
  /** The file's column resolution is remembered (not by --plan or --dry-run, which change nothing). */
  rememberColumns: boolean;
  /** The CONTACT field definitions as the API lists them now, by key; undefined when they cannot be read. */
  fields(): Promise<ReadonlyMap<string, FieldDefinition> | undefined>;
  /** --key-column: the ledger job that maps the file's keys to their contacts (docs/sync.md, "A key column"). */
  keyJob?: LedgerJob;
}

/**
 * The state key of an account's snapshot: the account as export states name it (the key's
 * identity, the API's host and path; never the key), then `/contacts-sync`. Every way of
 * reaching one account (environment, default or named profile) shares it; two accounts never do.
 */
export function syncStateKey(baseUrl: string, apiKey: string): string {
  return `${accountIdentity(baseUrl, apiKey)}/contacts-sync`;
}

/**
 * `contacts sync --file`, in its three phases, under the sync's lock: (1) refresh the snapshot
 * of the account (src/sync/snapshot.ts), while the file is opened and its columns and numbers
 * checked; (2) decide each row against the snapshot (src/sync/decided-rows.ts); (3) send the rows
 * that change something through the file run (src/batch/file-run.ts), as `contacts upsert
 * --file` sends them, or with --plan show them.
 */
export async function runSync<B extends Record<string, unknown>>(
  deps: { batch: BatchDeps; snapshot: SnapshotDeps },
  base: FileBatchSpec<B>,
  opts: ContactsSyncOptions,
): Promise<CommandResult> {
  const started = deps.snapshot.clock.now();
  const lock = await lockSync(deps.snapshot.stateDir.path, opts.key);
  deps.snapshot.onDispose(() => lock.release());
  // Read once, afresh, for the columns and the comparison (the file's opening asks for them too).
  const reading = opts.fields();
  // The refresh mostly waits on the network and the disk: the file's opening and scan (CPU) go on meanwhile.
  const stop = new AbortController();
  const refreshing = reading
    .then((fields) =>
      refreshSnapshot(
        { ...deps.snapshot, signal: AbortSignal.any([deps.snapshot.signal, stop.signal]) },
        {
          key: opts.key,
          fields: fields ?? new Map<string, FieldDefinition>(),
          watched: fields !== undefined,
          full: opts.fullRefresh,
          staleAfter: opts.staleAfter,
          crash: opts.crash,
        },
      ),
    )
    .catch(async (err: unknown) => {
      // A first refresh that committed no page leaves nothing behind (its export saved no state).
      await discardUncommittedSnapshot(deps.snapshot, opts.key);
      throw err;
    });
  refreshing.catch(() => {}); // awaited below, whichever way the file's opening goes
  let opened: OpenedFile;
  let remember: () => void;
  try {
    ({ opened, remember } = await openChecked(deps, base, opts));
  } catch (err) {
    // The refresh stops for the file with a reason of its own: the file's error (and its hint) is
    // the one the run ends with, never reworded as the refresh's.
    stop.abort(new Error('the input was refused'));
    await refreshing.catch(() => {});
    throw err;
  }
  const snapshot = await refreshing.catch(async (err: unknown) => {
    await closeFile(opened);
    throw err;
  });
  deps.snapshot.onDispose(() => snapshot.close());
  // The ledger once the account and the file are read: a first run refused before leaves none.
  const keys = opts.keyJob && (await openKeys(deps.snapshot, opts.keyJob, base.options.mode, opened));
  remember();
  const { rows, counts } = decidedRows(snapshot, {
    base,
    fields: (await reading) ?? new Map<string, FieldDefinition>(),
    plan: opts.plan,
    exitCode: opts.exitCode,
    keys,
  });
  let result: CommandResult;
  try {
    result = await sendFile(deps.batch, opened, rows);
  } catch (err) {
    await keys?.end({ started, failure: err }, deps.batch).catch(() => {});
    throw err;
  }
  await keys?.end({ started, exitCode: result.exitCode }, deps.batch);
  await opts.plan?.end(counts);
  return result;
}

/** The key column's ledger, opened (and, for a run that sends, locked: one run of the job at a time). */
async function openKeys(deps: LedgerDeps, job: LedgerJob, mode: RunMode, opened: OpenedFile): Promise<ContactKeys> {
  try {
    return await ContactKeys.open(deps, job, mode === 'send');
  } catch (err) {
    await closeFile(opened);
    throw err;
  }
}

/**
 * The file opened, its columns compared with the last sync's (under the sync's lock), its numbers
 * settled; and what remembers its columns, once the run gets to its rows.
 */
async function openChecked<B>(
  deps: { batch: BatchDeps; snapshot: SnapshotDeps },
  base: FileBatchSpec<B>,
  opts: ContactsSyncOptions,
): Promise<{ opened: OpenedFile; remember: () => void }> {
  const opened = await openFile(deps.batch, base);
  let remember: () => void;
  try {
    remember = settleColumns(deps.snapshot, { ...opts, path: base.path }, opened.columns.resolved());
  } catch (err) {
    await closeFile(opened);
    throw err;
  }
  await checkFile(deps.batch, opened);
  return { opened, remember };
}
