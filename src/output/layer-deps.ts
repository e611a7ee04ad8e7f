import type { Writable } from 'node:stream';
import type { Clock } from '../clock.js';
import type { Notices, ProgressDisplay } from './notices.js';

/**
 * What every layer below the commands may take from the command around it (never the CLI's
 * Context): each layer's deps (ExportDeps, ReporterDeps, BatchDeps, FieldCacheDeps, TapDeps)
 * picks the members it needs from this one base, so a member means one thing everywhere and is
 * documented once. src/cmdutil/context-deps.ts makes them from a context.
 */
export interface LayerDeps {
  clock: Clock;
  /** The run's end (SIGINT, SIGTERM, a closed stdout): work in flight stops at it. */
  signal: AbortSignal;
  /** Lines on stderr (warnings, notes), the API key masked. */
  notices: Notices;
  /**
   * --quiet: `notices` prints nothing but `tell`'s lines; what a quiet run must still say is said
   * alone (a partial file run's one line, an export's values sent to `_extra`).
   */
  quiet?: boolean;
  /** Where data goes: rows without --out, a `--summary-json -`, the tap's messages. */
  stdout: Writable;
  /** --json or -q: prints the run's summary document (the --summary-json one) on stdout. */
  printDocument?: (document: Record<string, unknown>) => void;
  /** The spinner's place; none when progress display is not allowed. */
  progress?: ProgressDisplay;
  /** Cleanup when the process ends, whatever happened (a lock's release). */
  onDispose(fn: () => Promise<void> | void): void;
  /** The executable's heap hold (src/runtime/heap-hold.ts), given by the launcher only: none in-process. */
  holdHeap?: () => () => void;
}
