import type { Hash } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import type { ExportReporter } from '../exporter/run-summary.js';

/** How often, at most, a refresh writes its record while it runs. */
const INTERVAL_MS = 1000;
const CHUNK = 1 << 20;

/**
 * The snapshot's record kept up to date while a refresh runs: after a page is committed (at most
 * once a second), the bytes committed since are fed to the digest and a record vouching for all
 * of them is written. A run killed during a refresh (the first one of a large account takes
 * minutes) so leaves a record of what it committed, and the next run continues from the export's
 * committed position instead of refreshing everything again.
 */
export class RefreshCheckpoint {
  private hashedTo: number;
  private lastWrite = -Infinity;

  /**
   * `from`: the bytes before it are in `digest` already. `committed`: what the export's state has
   * committed now. `write`: writes the record for the first `bytes` bytes, of this SHA-256.
   */
  constructor(
    private readonly o: {
      path: string;
      digest: Hash;
      from: number;
      now(): number;
      committed(): number;
      write(bytes: number, sha256: string): void;
    },
  ) {
    this.hashedTo = o.from;
  }

  /** Where the digest stops: the bytes from here on are not in it yet. */
  get hashed(): number {
    return this.hashedTo;
  }

  /** A page was committed. */
  page(): void {
    if (this.o.now() - this.lastWrite < INTERVAL_MS) return;
    const to = this.o.committed();
    if (to <= this.hashedTo || !this.hashTo(to)) return;
    this.o.write(this.hashedTo, this.o.digest.copy().digest('hex'));
    this.lastWrite = this.o.now();
  }

  /** Feeds the digest up to `to`; false when the file ends first (the final read says so, and why). */
  private hashTo(to: number): boolean {
    const fd = openSync(this.o.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, to - this.hashedTo));
      while (this.hashedTo < to) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, to - this.hashedTo), this.hashedTo);
        if (n === 0) return false;
        this.o.digest.update(buf.subarray(0, n));
        this.hashedTo += n;
      }
      return true;
    } finally {
      closeSync(fd);
    }
  }
}

/** The export's reporter, with the checkpoint after each page it reports (a page is reported once committed). */
export function withCheckpoint(reporter: ExportReporter, checkpoint: RefreshCheckpoint): ExportReporter {
  return {
    page(rows, pages) {
      reporter.page(rows, pages);
      checkpoint.page();
    },
    done: (summary, how) => reporter.done(summary, how),
  };
}
