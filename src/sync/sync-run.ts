import type { FieldDefinition } from '../endpoints/fields.js';
import type { Decided, FileBatchSpec } from '../batch/file-run.js';
import { ExitCode } from '../errors.js';
import type { CrashHook } from '../exporter/crash-points.js';
import { accountIdentity } from '../exporter/state-key.js';
import type { ExportLock } from '../exporter/lock.js';
import { settleColumns } from './column-memory.js';
import { SyncDecider } from './decide.js';
import type { PlanOutput } from './plan-output.js';
import { lockSync, refreshSnapshot, type Snapshot, type SnapshotDeps } from './snapshot.js';
import { SyncCounts } from './sync-counts.js';

/** How a sync runs, beyond the file run it wraps. */
interface SyncOptions {
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
 * A contacts file run that sends only the rows that change something: before the rows, the
 * snapshot is refreshed (src/sync/snapshot.ts) under the sync's lock; each valid row is then
 * decided against it (src/sync/decide.ts): `unchanged` rows get that result without a request,
 * the others are sent as `contacts upsert --file` sends them (or, with --plan, shown).
 */
export function syncFileSpec<B extends Record<string, unknown>>(
  deps: SnapshotDeps,
  base: FileBatchSpec<B>,
  opts: SyncOptions,
): { spec: FileBatchSpec<B>; counts: SyncCounts } {
  const counts = new SyncCounts();
  let snapshot: Snapshot | undefined;
  let decider: SyncDecider | undefined;
  // The order keys of the snapshot contacts each row to send may change (Decision.reaches).
  const reaching = new WeakMap<B, string[]>();
  const keysOf = (body: unknown): string[] => [base.orderKey?.(body as B) ?? []].flat();
  // The columns are checked under the sync's lock, which the refresh takes while the file is opened.
  let lockTaken: (taken: boolean) => void = () => {};
  const locked = new Promise<boolean>((resolve) => (lockTaken = resolve));
  const spec: FileBatchSpec<B> = {
    ...base,
    async beforeRows(stop) {
      let lock: ExportLock;
      try {
        await base.beforeRows?.(stop);
        lock = await lockSync(deps.stateDir.path, opts.key);
      } catch (err) {
        lockTaken(false);
        throw err;
      }
      lockTaken(true);
      deps.onDispose(() => lock.release());
      const fields = (await opts.fields()) ?? new Map<string, FieldDefinition>();
      snapshot = await refreshSnapshot(
        { ...deps, signal: AbortSignal.any([deps.signal, stop]) },
        opts.key,
        new Map([...fields].map(([key, def]) => [key, def.label])),
        { full: opts.fullRefresh, staleAfter: opts.staleAfter, crash: opts.crash },
      );
      deps.onDispose(() => snapshot?.close());
      counts.refresh = snapshot.refresh;
      decider = new SyncDecider(snapshot, fields);
    },
    async columnsResolved(columns) {
      await base.columnsResolved?.(columns);
      // A lock not taken fails the refresh, which says why.
      if (await locked) settleColumns(deps, { ...opts, path: base.path }, columns);
    },
    prepare(row, columns): Decided<B> {
      const prepared = base.prepare(row, columns);
      if (prepared.invalid || prepared.done) return prepared;
      const decision = decider!.decide(prepared.payload);
      counts.see(decision);
      opts.plan?.add(row.line, prepared.identifier, decision, shownContact(prepared.payload, prepared.identifier));
      if (decision.action === 'unchanged')
        return {
          identifier: prepared.identifier,
          done: { status: 'unchanged', id: decision.cnvContactId },
          payload: prepared.payload,
        };
      // As the upsert keys them (the contact's id and email, as a row naming it so would be keyed).
      reaching.set(
        prepared.payload,
        (decision.reaches ?? []).flatMap((c) => keysOf({ cnvContactId: c.id, email: c.email?.trim() ?? undefined })),
      );
      const why = decision.unsure && `sent because cnv cannot be sure it changes nothing: ${decision.unsure.detail}`;
      return why ? { ...prepared, note: [prepared.note, why].filter(Boolean).join('; ') } : prepared;
    },
    // A row by email waits for an earlier row that changes the contact it reaches by id, and the reverse.
    orderKey: (body) => [...new Set([...keysOf(body), ...(reaching.get(body) ?? [])])],
    summary: {
      first: opts.plan ? (batch, elapsedMs) => counts.settle(batch).planSummary(batch.rows, elapsedMs) : undefined,
      line: (batch) => counts.settle(batch).line(base.options.mode),
      data: (batch) => counts.settle(batch).data(),
      exitCode: (code) => (opts.exitCode && counts.pending > 0 ? ExitCode.pendingChanges : code),
    },
  };
  return { spec, counts };
}

/** A contact as the plan's table names it: by the row's email when it has one (an `id` column's UUID tells a reader little), else the row's identifier. */
function shownContact(body: Record<string, unknown>, identifier: string): string {
  return typeof body.email === 'string' && body.email.trim() !== '' ? body.email.trim() : identifier;
}
