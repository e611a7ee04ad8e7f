import { createHash } from 'node:crypto';
import { TransientError } from '../errors.js';
import { NO_CRASH, type CrashHook } from './crash-points.js';
import type { RunPlan } from './export-run-options.js';
import type { ExportSummary } from './run-summary.js';
import { nextState } from './run-record.js';
import { withManifest, type ExportState, type Manifest, type Position } from './export-state.js';

/**
 * The run's side of the export state: the position saved after each page (the commit), and the
 * run's manifest (its figures and the checksum of the bytes it wrote), saved with every commit
 * and once more at the end. Without a state (--no-state) nothing is saved and no checksum made.
 */
export class CommitLog {
  readonly manifest: Manifest;
  private state: ExportState | undefined;
  private saved = false;
  private readonly hash = createHash('sha256');
  private readonly crash: CrashHook;

  constructor(
    private readonly plan: RunPlan,
    private readonly opts: {
      runId: string;
      startedMs: number;
      /** The output's name in the manifest (a path, or `stdout`). */
      output: string;
      /** The manifest's first cursor (null for a multi-type run: each type has its own). */
      firstCursor: string | null;
      /** --defer-commit: positions are saved as pending. */
      defer: boolean;
      now: () => number;
      crash?: CrashHook;
      /** Masks the key in what the manifest keeps of the rows (the names of members without a column). */
      redact: (text: string) => string;
    },
  ) {
    this.state = plan.prior;
    this.crash = opts.crash ?? NO_CRASH;
    this.manifest = {
      runId: opts.runId,
      startedAt: new Date(opts.startedMs).toISOString(),
      finishedAt: null,
      status: 'running',
      rows: 0,
      pages: 0,
      bytes: 0,
      sha256: createHash('sha256').digest('hex'),
      firstCursor: opts.firstCursor,
      lastCursor: opts.firstCursor,
      output: opts.output,
      startOffset: null,
      moreRemains: true,
      ...(plan.fieldChanges ? { fieldChanges: plan.fieldChanges } : {}),
    };
  }

  /** Whether anything of this run was saved in the state yet. */
  get committedOnce(): boolean {
    return this.saved;
  }

  /** Saves `pos` (pending with --defer-commit) with the manifest; with null, the manifest alone. */
  async save(pos: Position | null): Promise<void> {
    if (!this.plan.store) return;
    const { manifest } = this;
    this.state = nextState(this.plan, this.state, { pos, defer: this.opts.defer, manifest, nowMs: this.opts.now() });
    await this.plan.store.write(this.state);
    this.saved = true;
  }

  /** The first page of a run without a state yet, of a --full run, or of a --defer-commit run (its pending position) is always saved, even when empty. */
  needsFirstSave(): boolean {
    return needsFirstSave(this.plan, this.saved, this.opts.defer);
  }

  /** Adds bytes written to the output to the manifest's checksum (none without a state to keep it in). */
  wrote(pieces: readonly Buffer[]): void {
    // SHA-256 of a million-row export costs ~0.3 s of CPU, for a manifest no one would read.
    if (!this.plan.store) return;
    for (const piece of pieces) this.hash.update(piece);
  }

  /** The run's figures so far, into the manifest (saved with the next commit). */
  progress(summary: Pick<ExportSummary, 'rows' | 'pages' | 'bytes' | 'extra'>, lastCursor?: string | null): void {
    Object.assign(this.manifest, {
      rows: summary.rows,
      pages: summary.pages,
      bytes: summary.bytes,
      sha256: this.hash.copy().digest('hex'),
      // A field label may hold the key (a server that echoes it): masked, as all it stores (docs/guarantees.md).
      ...(summary.extra ? { extra: { ...summary.extra, members: summary.extra.members.map(this.opts.redact) } } : {}),
    });
    if (lastCursor !== undefined) this.manifest.lastCursor = lastCursor;
  }

  /**
   * Commits `pos` once pages `first`..`last` are written (and fsynced into a file): one atomic
   * state write, refused when the state's lock was lost meanwhile. The crash hook's
   * before-state and after-state points are on either side of it.
   */
  async commit(pos: Position, first: number, last = first): Promise<void> {
    for (let n = first; n <= last; n++) this.crash.at('before-state', n, true);
    const lost = this.plan.lock?.lost();
    if (lost)
      throw new TransientError(
        `the lock of export state "${this.plan.key}" was lost (${lost.message}); nothing more committed`,
        { code: 'lock_lost' },
      );
    await this.save(pos);
    for (let n = first; n <= last; n++) this.crash.at('after-state', n, true);
  }

  /**
   * The run's last manifest, once it ended: every run's, except one that failed before
   * committing anything (a rejected cursor), which leaves the state untouched.
   */
  async close(summary: ExportSummary, finishedMs: number): Promise<void> {
    this.manifest.finishedAt = new Date(finishedMs).toISOString();
    this.manifest.moreRemains = summary.moreRemains;
    if (this.state && (this.saved || summary.status === 'complete' || summary.status === 'stopped'))
      await finishManifest(this.plan, this.state, this.manifest);
  }
}

/** The first page of a run without a state yet, of a --full run, or of a --defer-commit run (its pending position) is always saved, even when empty. */
export function needsFirstSave(plan: RunPlan, committedOnce: boolean, defer: boolean): boolean {
  return plan.store !== undefined && !committedOnce && (plan.prior === undefined || plan.restarted || defer);
}

async function finishManifest(plan: RunPlan, state: ExportState, manifest: Manifest): Promise<void> {
  try {
    await plan.store!.write({ ...state, runs: withManifest(state.runs, manifest) });
  } catch {
    // The manifest is a record of the run; the committed position is already safe.
  }
}
