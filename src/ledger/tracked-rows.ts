import type { RunMode } from '../batch/batch-run-options.js';
import { payloadHash, type FileRowsSpec, type Prepared } from '../batch/file-run.js';
import type { BatchCounts } from '../batch/summary.js';
import { SUCCESS_STATUSES, type BatchItem, type ItemOutcome } from '../batch/types.js';
import type { InputRow } from '../input/input-rows.js';
import type { Ledger } from './ledger.js';
import type { LedgerRecord } from './ledger-file.js';

/** Where a contact a key named before is kept once its key names another (a membership's removal candidate). */
const REPLACED = '\u0000replaced:';

/** A key as people read it: a contact kept for a key that now names another is shown by its id; a key's n-th row as `key #n`. */
export function shownKey(key: string): string {
  return (key.startsWith(REPLACED) ? key.slice(REPLACED.length) : key).replace('\u0000#', ' #');
}

/** A row to send, as the ledger tells it: new to the ledger, or with values that changed since they were sent. */
export type SendKind = 'new' | 'changed';

/** How a ledger job decides and records its rows (docs/ledger.md, "Deciding a row"). */
export interface LedgerTrackOptions<P> {
  ledger: Ledger;
  /** The row's key (its --key-column's value, or its identifier); an InvalidRowError when it has none. */
  key(row: InputRow, prepared: { identifier: string; payload: P }): string;
  mode: RunMode;
  /** --full: every valid row is sent, whatever the ledger says (and recorded). */
  full?: boolean;
  /** Events: a key sent once is never sent again, whatever its values (its event id is the same). */
  sentOnce?: boolean;
  /** Memberships: a key that now names another contact leaves the one it named a candidate for removal. */
  keepReplaced?: boolean;
  /** Each row to send, as decided (a --plan lists them). */
  onSend?(row: { line: number; key: string; identifier: string; kind: SendKind; payload: P }): void;
}

/** What a ledger job decided and did, for its summary (`ledger` in the JSON summary). */
export class LedgerTally {
  added = 0;
  updated = 0;
  unchanged = 0;
  removed = 0;
  held = 0;
  /** Rows refused in an earlier run with the same values: not sent (counted as failed). */
  refusedBefore = 0;
  /** Rows decided to be sent (or, with --plan, that would be). */
  toSend = 0;
  /** Rows given a key: every row but the unreadable and those without one. */
  keyed = 0;
  /** The keys of the file. */
  readonly seen = new Set<string>();
}

interface Tag {
  /** The key's place in the ledger (its n-th row in the file has one of its own). */
  key: string;
  /** The key itself: its rows are sent in file order. */
  order: string;
  digest: string;
  kind: SendKind;
}

/**
 * Between a key and the number of its row, for the second and later rows of a key in one file
 * (never in a cell: NUL is refused).
 */
const REPEAT = '\u0000#';

/** A later row of an event id the file has already: the same event. */
const REPEATED: ItemOutcome = {
  status: 'unchanged',
  message: 'an earlier row of the file has this id: the same event',
};

/**
 * A file run's rows decided against the ledger and recorded in it: a row whose key the ledger
 * holds with the same values (`ok`) is `unchanged` and costs no request; one refused earlier
 * with the same values is `failed` again without a request; every other row is sent, and its
 * outcome recorded (appended to the journal, on disk) before the row's result is reported. Rows
 * of one key go in file order (an order key), each compared with the row before it in the file.
 */
export function trackedRows<P extends object>(
  rows: FileRowsSpec<P>,
  opts: LedgerTrackOptions<P>,
): { rows: FileRowsSpec<P>; tally: LedgerTally } {
  const tally = new LedgerTally();
  const tags = new WeakMap<object, Tag>();
  // Per key of this run: its rows so far, times two, plus one once one of them is sent (then
  // every later one is: file order). A number, not an object: 100,000 keys cost no garbage.
  const inRun = new Map<string, number>();
  const { ledger } = opts;
  const sending = opts.mode === 'send';
  const decide = (row: InputRow, prepared: Prepared<P>): Prepared<P> => {
    if (prepared.invalid || prepared.done || prepared.payload === undefined) return prepared;
    const payload = prepared.payload;
    const key = opts.key(row, { identifier: prepared.identifier, payload });
    tally.keyed++;
    const run = inRun.get(key) ?? 0;
    const rows = run >> 1;
    // The n-th row of a key has a place of its own in the ledger: a file repeating a key unchanged sends none of them.
    const slot = rows === 0 || opts.sentOnce ? key : `${key}${REPEAT}${rows + 1}`;
    tally.seen.add(slot);
    const digest = payloadHash(payload);
    const entry = ledger.entries.get(slot);
    if (!opts.full && (run & 1) === 0) {
      const done = opts.sentOnce && rows > 0 ? REPEATED : known(entry, digest, opts.sentOnce);
      if (done) {
        inRun.set(key, run + 2);
        if (done.status === 'failed') tally.refusedBefore++;
        else tally.unchanged++;
        return { identifier: prepared.identifier, done, payload };
      }
    }
    inRun.set(key, (run + 2) | 1);
    const kind: SendKind = entry !== undefined ? 'changed' : 'new';
    tags.set(payload, { key: slot, order: key, digest, kind });
    tally.toSend++;
    if (!sending) count(tally, kind);
    opts.onSend?.({ line: row.line, key, identifier: prepared.identifier, kind, payload });
    return prepared;
  };
  const record = async (items: BatchItem<P>[], outcomes: ItemOutcome[]) => {
    const records: LedgerRecord[] = [];
    items.forEach((item, i) => {
      const tag = tags.get(item.payload);
      if (tag) records.push(...outcomeRecords(tag, outcomes[i], ledger, tally, opts.keepReplaced === true));
    });
    await ledger.record(records);
  };
  return {
    tally,
    rows: {
      ...rows,
      prepare: (row, columns) => decide(row, rows.prepare(row, columns)),
      send: async (items, signal) => {
        const outcomes = await rows.send(items, signal);
        await record(items, outcomes);
        return outcomes;
      },
      // The rows of a key in file order, so that the ledger's last record of it is the file's last row.
      orderKey: (payload) => {
        const own = rows.orderKey?.(payload);
        const key = tags.get(payload)?.order;
        if (key === undefined) return own;
        return own === undefined ? `ledger:${key}` : [...(typeof own === 'string' ? [own] : own), `ledger:${key}`];
      },
    },
  };
}

/** A row the ledger knows: not sent when these values were taken (or, for events, when its key was), or refused. */
function known(
  entry: { digest: string; state: string; id?: string; code?: string } | undefined,
  digest: string,
  sentOnce = false,
): ItemOutcome | undefined {
  if (!entry) return undefined;
  if (entry.state === 'ok' && (entry.digest === digest || sentOnce)) {
    const changed = entry.digest !== digest ? ' (its values changed since, but an event cannot be changed)' : '';
    return { status: 'unchanged', ...(entry.id ? { id: entry.id } : {}), message: `sent in an earlier run${changed}` };
  }
  if (entry.state === 'refused' && entry.digest === digest)
    return {
      status: 'failed',
      error: entry.code ?? 'refused',
      message: 'refused in an earlier run with these values; sent again once they change',
    };
  return undefined;
}

function count(tally: LedgerTally, kind: SendKind): void {
  if (kind === 'new') tally.added++;
  else tally.updated++;
}

/** What the ledger records of one sent row: its values taken (with the id answered), refused, or nothing (to be sent again). */
function outcomeRecords(
  tag: Tag,
  outcome: ItemOutcome,
  ledger: Ledger,
  tally: LedgerTally,
  keepReplaced: boolean,
): LedgerRecord[] {
  const entry = ledger.entries.get(tag.key);
  if (SUCCESS_STATUSES.has(outcome.status)) {
    count(tally, tag.kind);
    const id = outcome.id ?? entry?.id ?? null;
    const put: LedgerRecord = ['put', tag.key, tag.digest, 'ok', id, null];
    if (!keepReplaced || !entry?.id || !outcome.id || entry.id === outcome.id) return [put];
    return [put, ['put', `${REPLACED}${entry.id}`, '', 'ok', entry.id, null]];
  }
  if (outcome.status === 'failed' && outcome.refusal)
    return [['put', tag.key, tag.digest, 'refused', entry?.id ?? null, outcome.error ?? null]];
  return [];
}

/** The JSON summary's `ledger` member, and the line on stderr. */
export function ledgerSummary(
  ledger: Ledger,
  tally: LedgerTally,
  counts: BatchCounts,
): { data: Record<string, unknown>; line: string } {
  const data = {
    job: ledger.job.key,
    trusted: ledger.trusted,
    added: tally.added,
    updated: tally.updated,
    unchanged: tally.unchanged,
    removed: tally.removed,
    held: tally.held,
    failed: counts.count('failed'),
  };
  const parts = [`${tally.added} added`, `${tally.updated} updated`, `${tally.unchanged} unchanged`];
  if (tally.removed > 0 || tally.held > 0) parts.push(`${tally.removed} removed`);
  if (tally.held > 0) parts.push(`${tally.held} removals held`);
  return { data, line: `ledger: ${parts.join(', ')} (job ${ledger.job.key})` };
}
