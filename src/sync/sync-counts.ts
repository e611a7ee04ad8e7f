import type { BatchCounts } from '../batch/summary.js';
import type { RunMode } from '../batch/batch-run-options.js';
import type { Decision, UnsureReason } from './decide.js';
import type { RefreshStats } from './snapshot.js';
import { duration } from '../output/wording.js';

/** What a sync decided for its rows, and what its snapshot refresh did: the summary's `sync` member and the plan's counts. */
export class SyncCounts {
  create = 0;
  update = 0;
  unchanged = 0;
  /** Rows the file had that were invalid (counted by the file run; set at the end for the plan). */
  invalid = 0;
  /** Rows sent and applied: the file run's created and updated (none with --plan or --dry-run). */
  sent = 0;
  /** Rows sent although they may change nothing, by reason. */
  readonly unsure = new Map<UnsureReason, number>();

  /** `refresh`: what the snapshot's refresh did. */
  constructor(readonly refresh?: RefreshStats) {}

  /** Takes the invalid rows from the file run's counts (rows that never reached a decision). */
  settle(batch: BatchCounts): this {
    this.invalid = batch.count('invalid');
    this.sent = batch.count('created') + batch.count('updated');
    return this;
  }

  /**
   * What the rows came to, in the run's summary line: `50 sent (created 10, updated 40), 4950
   * unchanged` (a dry run: `50 to send, 4950 unchanged`), where a file run says `5000 succeeded`.
   */
  outcome(batch: BatchCounts, mode: RunMode): string {
    this.settle(batch);
    const unchanged = `${batch.count('unchanged')} unchanged`;
    if (mode !== 'send') return `${batch.count('valid')} to send, ${unchanged}`;
    const detail = (['created', 'updated'] as const).filter((s) => batch.count(s) > 0);
    const how = detail.length ? ` (${detail.map((s) => `${s} ${batch.count(s)}`).join(', ')})` : '';
    return `${this.sent} sent${how}, ${unchanged}`;
  }

  see(decision: Decision): void {
    this[decision.action]++;
    if (decision.unsure) this.unsure.set(decision.unsure.reason, (this.unsure.get(decision.unsure.reason) ?? 0) + 1);
  }

  /** Rows that are (or would be) sent. */
  get pending(): number {
    return this.create + this.update;
  }

  get unsureTotal(): number {
    let n = 0;
    for (const count of this.unsure.values()) n += count;
    return n;
  }

  /** The plan's counts (its NDJSON `summary` line). */
  plan(): Record<string, unknown> {
    return {
      create: this.create,
      update: this.update,
      unchanged: this.unchanged,
      invalid: this.invalid,
      unsure: this.unsureTotal,
      unsureReasons: Object.fromEntries(this.unsure),
    };
  }

  /** The plan's last line on a terminal. */
  planLine(): string {
    const unsure =
      this.unsureTotal > 0
        ? ` (${this.unsureTotal} of them because cnv cannot be sure they match: ${this.reasons()})`
        : '';
    return `Plan: ${this.decided(unsure)}.`;
  }

  /** The summary's `sync` member (--json, --summary-json). */
  data(): Record<string, unknown> {
    const r = this.refresh;
    return {
      sync: {
        ...this.plan(),
        sent: this.sent,
        snapshot: r
          ? {
              contacts: r.contacts,
              fetchedRows: r.rows,
              pages: r.pages,
              full: r.full,
              reason: r.reason ?? null,
              lastFullRefresh: r.fullAt,
              stateKey: r.stateKey,
              elapsedMs: Math.round(r.elapsedMs),
            }
          : null,
      },
    };
  }

  /** A plan's summary line (stderr): what it decided, and that nothing was sent. */
  planSummary(rows: number, elapsedMs: number): string {
    const unsure = this.unsureTotal > 0 ? ` (${this.unsureTotal} unsure)` : '';
    return `plan: ${this.decided(unsure)}; nothing sent (${count(rows, 'row')} in ${duration(elapsedMs)})`;
  }

  /** The plan's counts in words: `1 to create, 2 to update (1 unsure), 3 unchanged, 0 invalid`. */
  private decided(unsure: string): string {
    const changes = `${this.create} to create, ${this.update} to update${unsure}`;
    return `${changes}, ${this.unchanged} unchanged, ${this.invalid} invalid`;
  }

  /** The summary's second line (a plan's: only what the refresh did, its counts being in the first). */
  line(mode: RunMode): string | undefined {
    const r = this.refresh;
    if (mode === 'plan') return r ? snapshotWords(r) : undefined;
    const verb = mode === 'send' ? 'sent' : 'would send';
    const unsure =
      this.unsureTotal > 0
        ? `; ${this.unsureTotal} ${verb} because cnv cannot be sure they match (${this.reasons()})`
        : '';
    const snapshot = r ? `; ${snapshotWords(r)}${r.full ? '' : `, last full refresh ${r.fullAt}`}` : '';
    return `sync: ${this.create} to create, ${this.update} to update, ${this.unchanged} unchanged (not sent)${unsure}${snapshot}`;
  }

  private reasons(): string {
    return [...this.unsure].map(([reason, n]) => `${n} ${reason}`).join(', ');
  }
}

/** What the refresh did: `snapshot: 5000 contacts, refreshed: 12 rows in 1 page`. */
function snapshotWords(r: RefreshStats): string {
  const how = r.full ? 'full refresh' : 'refreshed';
  return `snapshot: ${count(r.contacts, 'contact')}, ${how}: ${count(r.rows, 'row')} in ${count(r.pages, 'page')}`;
}

// Plain digits (no grouping), as the batch summary's: these lines are grepped by scripts.
function count(n: number, one: string): string {
  return `${n} ${n === 1 ? one : `${one}s`}`;
}
