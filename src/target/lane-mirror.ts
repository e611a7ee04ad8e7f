import type { RunMode } from '../batch/batch-run-options.js';
import { BatchCounts } from '../batch/summary.js';
import { removalPass } from '../ledger/removals.js';
import { LedgerTally, shownKey } from '../ledger/tracked-rows.js';
import type { Notices } from '../output/notices.js';
import type { StreamLane } from './stream-lane.js';
import { TablePasses } from './table-passes.js';

/**
 * An audience stream mirrored (docs/target.md, "Removals"): a member the stream added is removed
 * only after a complete pass of the table (an ACTIVATE_VERSION read after records of its
 * version: members that pass did not hold; a new pass announced: members absent from the last
 * two full passes), or when a record marks it deleted (`_sdc_deleted_at`); never because the
 * input ended. The removals are the ledger's (src/ledger/removals.ts): only contacts the stream's
 * job added, held past max_removals, only with a ledger that was whole when the run started.
 */
export class LaneMirror {
  private readonly passes: TablePasses;
  /** Keys of records marked deleted, removed at the next state (or the end). */
  private readonly deleted = new Set<string>();

  constructor(
    private readonly lane: StreamLane<object>,
    private readonly notices: Notices,
    private readonly mode: RunMode,
  ) {
    this.passes = new TablePasses(lane.sink.ledger);
    lane.more = () => this.passes.drain();
  }

  /** Before a record of table version `version`: a newer one starts a pass (the lane settled first). */
  async version(version: number): Promise<void> {
    if (!this.passes.startsPass(version)) return;
    await this.lane.settle();
    const cutoff = this.passes.start(version);
    if (cutoff !== undefined) await this.remove(this.passes.keptSince(cutoff), 0);
  }

  /** A record of the stream read (its key; undefined: it has none), of `version` when it has one. */
  see(key: string | undefined, version: number | undefined): void {
    if (key !== undefined) this.deleted.delete(key);
    if (version !== undefined) this.passes.see(key, version);
  }

  /** A record marked deleted: its member is removed at the next state. */
  markDeleted(key: string): void {
    this.deleted.add(key);
  }

  get pendingDeletions(): number {
    return this.deleted.size;
  }

  /** The members of records marked deleted since the last time, removed (the lane settled first). */
  async deletions(): Promise<void> {
    if (this.deleted.size === 0) return;
    await this.lane.settle();
    const gone = new Set(this.deleted);
    this.deleted.clear();
    await this.remove(this.passes.allBut(gone), gone.size);
  }

  /** ACTIVATE_VERSION `version`, read after every record before it. */
  async activate(version: number): Promise<void> {
    await this.lane.settle();
    const what = this.passes.activate(version);
    const stream = `stream ${this.lane.stream}`;
    if (what.kind === 'older')
      this.notices.warn(
        `${stream}: ACTIVATE_VERSION ${version} is older than the pass under way (${what.active}): ignored, nothing removed`,
      );
    else if (what.kind === 'complete' && what.unkeyed > 0)
      this.notices.info(
        `note: ${stream}: nothing is removed for pass ${version}: ${what.unkeyed} of its records had no key, and may be members`,
      );
    else if (what.kind === 'complete') await this.remove(this.passes.keptSince(what.cutoff), 0);
    else if (what.kind === 'start' && what.cutoff !== undefined)
      await this.remove(this.passes.keptSince(what.cutoff), 0);
  }

  /**
   * The ledger's removal pass over the members not in `keep` (`gone`: records marked deleted,
   * which are keyed rows of their own), run through the lane into its report and counts.
   */
  private async remove(keep: Set<string>, gone: number): Promise<void> {
    // What the lane holds is not whole once it stopped: no removal is decided from it.
    if (this.lane.stopped) return;
    const { sink } = this.lane;
    const tally = new LedgerTally();
    for (const key of keep) tally.seen.add(key);
    tally.keyed = keep.size + gone;
    const counts = new BatchCounts();
    counts.rows = tally.keyed;
    const change = this.lane.schema.change;
    const pass = await removalPass({
      ...sink.removals!,
      maxRemovals: sink.maxRemovals,
      ledger: sink.ledger,
      tally,
      notices: targetWords(this.notices, this.lane.stream),
      sending: this.mode === 'send',
      onRemoval:
        change &&
        ((removal, held) =>
          change({
            type: 'change',
            stream: this.lane.stream,
            action: held ? 'held' : 'remove',
            key: shownKey(removal.keys[0]),
            cnvContactId: removal.cnvContactId,
          })),
    })(counts);
    if (pass) await this.lane.extra(pass);
  }
}

/** The removal pass's lines in the target's words: max_removals is a setting, the input a pass. */
function targetWords(notices: Notices, stream: string): Notices {
  const words = (m: string) => {
    const said = m
      .replace(/--max-removals (\d+)/g, 'max_removals: $1')
      .replace('the file holds no rows (an empty file never empties the audience)', 'the pass held no records');
    // A listed removal (`  held: ...`) stays under its warning as it is.
    if (said.startsWith(' ')) return said;
    return said.startsWith('note: ') ? `note: stream ${stream}: ${said.slice(6)}` : `stream ${stream}: ${said}`;
  };
  return { ...notices, warn: (m) => notices.warn(words(m)), info: (m) => notices.info(words(m)) };
}
