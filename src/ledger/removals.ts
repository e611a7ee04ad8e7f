import type { FilePass } from '../batch/file-run.js';
import { perRowSender } from '../batch/per-row.js';
import type { BatchCounts } from '../batch/summary.js';
import type { BatchItem, ItemOutcome, PreparedRow } from '../batch/types.js';
import type { Notices } from '../output/notices.js';
import type { Ledger } from './ledger.js';
import type { LedgerRecord } from './ledger-file.js';
import { shownKey, type LedgerTally } from './tracked-rows.js';

/** A removal: the contact the job added, and the keys of the ledger that name it. */
export interface Removal {
  cnvContactId: string;
  keys: string[];
}

/** How a mirror removes what left its file (docs/ledger.md, "Removals"). */
export interface RemovalOptions {
  ledger: Ledger;
  tally: LedgerTally;
  notices: Notices;
  /** --max-removals; undefined: 10% of the members the job had added, at least 100. */
  maxRemovals?: number;
  /** Sends nothing (--plan, --dry-run): the removals are shown, not made, and nothing is recorded. */
  sending: boolean;
  concurrency: number;
  /** One removal request; its outcome is `removed` (or a failure). */
  remove(cnvContactId: string, signal: AbortSignal): Promise<ItemOutcome>;
  request(cnvContactId: string): { method: string; path: string; body: unknown };
  /** Each removal decided (a --plan lists them), held or not. */
  onRemoval?(removal: Removal, held: boolean): void;
}

/** The default --max-removals: 10% of the members the job added, at least 100. */
function defaultMaxRemovals(members: number): number {
  return Math.max(100, Math.ceil(members / 10));
}

/** How many removals may be sent this run. */
function removalLimit(opts: Pick<RemovalOptions, 'maxRemovals' | 'ledger'>): number {
  return opts.maxRemovals ?? defaultMaxRemovals(opts.ledger.members);
}

/**
 * The removals of a mirror, as the file run's second pass (FileRowsSpec.after): the contacts the
 * job added whose keys the file no longer holds, one request each. Only from a file read to its
 * end (the file run calls it then) whose every row has a key, that is not empty, with a ledger
 * that was whole when the run started; a contact another key of the file still names stays.
 * More than the limit are held (status `held`, listed, exit 6) until --max-removals allows them.
 */
export function removalPass(opts: RemovalOptions): (counts: BatchCounts) => Promise<FilePass<Removal> | undefined> {
  return async (counts) => {
    const { ledger, tally, notices } = opts;
    // A ledger not whole: its note said so when it was opened.
    if (!ledger.trusted) return undefined;
    const why = whyNone(opts, counts);
    if (why) {
      notices.info(`note: nothing is removed this run: ${why}`);
      return undefined;
    }
    const { removals, forget } = candidates(ledger, tally);
    if (opts.sending) await ledger.record(forget.map((key): LedgerRecord => ['del', key]));
    if (removals.length === 0) return undefined;
    const limit = removalLimit(opts);
    if (removals.length > limit) return held(opts, removals, limit);
    for (const removal of removals) opts.onRemoval?.(removal, false);
    if (!opts.sending) tally.removed += removals.length;
    const single = perRowSender<Removal>((removal, signal) => opts.remove(removal.cnvContactId, signal));
    return {
      rows: removals.map((payload) => ({ line: 0, identifier: shownKey(payload.keys[0]), payload })),
      chunkSize: 1,
      concurrency: opts.concurrency,
      request: (items) => opts.request(items[0].payload.cnvContactId),
      send: async (items: BatchItem<Removal>[], signal) => {
        const outcomes = await single(items, signal);
        const records: LedgerRecord[] = [];
        items.forEach((item, i) => {
          if (outcomes[i].status !== 'removed') return;
          tally.removed++;
          for (const key of item.payload.keys) records.push(['del', key]);
        });
        await ledger.record(records);
        return outcomes;
      },
    };
  };
}

/** Why the file does not say who left: a ledger not whole, rows not all read or keyed, or none. */
function whyNone(opts: RemovalOptions, counts: BatchCounts): string | undefined {
  if (opts.tally.keyed === 0) return 'the file holds no rows (an empty file never empties the audience)';
  const unkeyed = counts.rows - opts.tally.keyed;
  if (unkeyed <= 0) return undefined;
  const rows = `${unkeyed} ${unkeyed === 1 ? 'row' : 'rows'}`;
  return (
    `${rows} of the file could not be read or had no valid key, ` +
    'and may name members (fix them, and the next run removes what left)'
  );
}

/**
 * The contacts to remove: those of the ledger's keys the file no longer holds (and of keys
 * that came to name another contact), one removal per contact. A contact that a key of the file
 * still names is not removed: its old keys are only forgotten.
 */
function candidates(ledger: Ledger, tally: LedgerTally): { removals: Removal[]; forget: string[] } {
  const wanted = new Set<string>();
  for (const key of tally.seen) {
    const id = ledger.entries.get(key)?.id;
    if (id !== undefined) wanted.add(id);
  }
  const byContact = new Map<string, string[]>();
  const forget: string[] = [];
  for (const [key, entry] of ledger.entries) {
    if (entry.id === undefined || tally.seen.has(key)) continue;
    if (wanted.has(entry.id)) forget.push(key);
    else byContact.set(entry.id, [...(byContact.get(entry.id) ?? []), key]);
  }
  return { removals: [...byContact].map(([cnvContactId, keys]) => ({ cnvContactId, keys })), forget };
}

/** More removals than the limit: none is sent; each is a `held` row, and the first are listed on stderr. */
function held(opts: RemovalOptions, removals: Removal[], limit: number): FilePass<Removal> {
  opts.tally.held = removals.length;
  const given =
    opts.maxRemovals === undefined
      ? `the default, 10% of the ${opts.ledger.members} members this job added, at least 100`
      : 'given';
  const more = `more than --max-removals ${limit} (${given})`;
  const allow = `run with --max-removals ${removals.length} to allow them`;
  const message = `held: ${removals.length} removals, ${more}; ${allow}`;
  opts.notices.warn(message);
  for (const removal of removals.slice(0, 20))
    opts.notices.info(`  held: ${shownKey(removal.keys[0])} (${removal.cnvContactId})`);
  if (removals.length > 20) opts.notices.info(`  ... and ${removals.length - 20} more (--report lists them all)`);
  for (const removal of removals) opts.onRemoval?.(removal, true);
  const rows: Array<PreparedRow<Removal>> = removals.map((r) => ({
    line: 0,
    identifier: shownKey(r.keys[0]),
    outcome: { status: 'held', id: r.cnvContactId, error: 'max_removals', message },
  }));
  return { rows, chunkSize: 1, concurrency: 1, request: () => opts.request(''), send: async () => [] };
}
