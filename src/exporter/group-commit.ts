import type { EmailEventType } from '../endpoints/exports.js';
import type { ExportRun } from './export-run.js';
import type { ReceivedPage } from './page-receiver.js';
import { addExtra, type ExportReporter } from './run-summary.js';
import type { LanePosition, Position } from './export-state.js';

/** A lane's page waiting for the group commit, and where it leaves its lane. */
interface LanePage {
  type: EmailEventType;
  page: ReceivedPage;
  lane: LanePosition;
  next: LanePosition;
}

/**
 * The commits of a multi-type run: the pages that arrived while the previous commit ran are
 * written together at the committed offset (each page its own gzip member), fsynced once, and
 * committed by one state write holding the file's new length and each of their types' new
 * cursors. `commit` resolves once the page is committed (or rejects with why it was not).
 */
export class GroupCommit {
  private readonly waiting: Array<LanePage & { done(err?: unknown): void }> = [];
  private committing = false;

  constructor(
    private readonly run: Pick<ExportRun, 'summary' | 'log' | 'output' | 'crash' | 'signal'>,
    private readonly reporter: ExportReporter,
    private pos: Position,
  ) {}

  /** The committed position, every lane's cursor in it. */
  get position(): Position {
    return this.pos;
  }

  commit(page: LanePage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ ...page, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.committing) return;
      this.committing = true;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      const err = await this.commitPages(batch).then(
        () => undefined,
        (e: unknown) => e ?? new Error('commit failed'),
      );
      for (const b of batch) b.done(err);
    }
    this.committing = false;
  }

  private async commitPages(batch: readonly LanePage[]): Promise<void> {
    const { summary, log, output, crash, signal } = this.run;
    const first = summary.pages + 1;
    const last = summary.pages + batch.length;
    const out = await output.prepare(batch.map((q) => ({ pieces: q.page.pieces, size: q.page.bytes })));
    for (let n = first; n <= last; n++) crash.at('after-fetch', n, true);
    signal.throwIfAborted();
    const bytes = await output.write(out, this.pos, crash.page(first, last));
    let changed = log.needsFirstSave();
    const lanes = { ...this.pos.lanes };
    let fresh = 0;
    for (const { type, page, lane, next } of batch) {
      changed ||= page.fresh > 0 || next.cursor !== lane.cursor || next.seen.length !== lane.seen.length;
      lanes[type] = next;
      fresh += page.fresh;
      summary.skipped += page.hits.size + page.repeated;
      addExtra(summary, page.extra);
    }
    this.pos = {
      ...this.pos,
      lanes,
      output: output.record(bytes),
      rows: this.pos.rows + fresh,
      pages: this.pos.pages + batch.length,
    };
    summary.rows += fresh;
    summary.pages = last;
    summary.bytes += out.size;
    log.progress(summary);
    if (changed) await log.commit(this.pos, first, last);
    output.committed(bytes);
    this.reporter.page(summary.rows, last);
  }
}
