import type { Readable, Writable } from 'node:stream';

/** The process streams a run may use, and what they are attached to. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** stdout is the process's own terminal, which a pager may take over (set by the launcher only). */
  pagerAllowed?: boolean;
}
