import { closeSync, constants, fdatasync, openSync, writeSync } from 'node:fs';
import { LocalFileError } from '../errors.js';
import { journalLine, type LedgerRecord } from './ledger-file.js';

/**
 * The journal of a running job, appended to after each outcome: the lines are written at once
 * and `append` resolves when they are on disk. Appends waiting together share one fdatasync (a
 * group commit: the chunks of a batch answering at once cost one sync), so a kill -9 loses at most
 * the outcomes not yet answered for. A failed write ends the journal: every later append throws.
 */
export class JournalWriter {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private failed: unknown;

  private constructor(
    private fd: number | undefined,
    private hash: string,
    private readonly path: string,
  ) {}

  /** Opens the journal at `path` for appending; `last` is the chain hash of its last line. */
  static open(path: string, last: string): JournalWriter {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0));
      return new JournalWriter(fd, last, path);
    } catch (err) {
      throw LocalFileError.from(err, 'ledger journal', path) ?? err;
    }
  }

  /** The chain hash of the last line written. */
  get last(): string {
    return this.hash;
  }

  /** Appends `records` and resolves once they are on disk. */
  async append(records: readonly LedgerRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.failed !== undefined) throw this.failed;
    if (this.fd === undefined) throw new Error('the ledger journal is closed');
    let text = '';
    let hash = this.hash;
    for (const record of records) {
      const line = journalLine(hash, record);
      text += line.text;
      hash = line.hash;
    }
    try {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (err) {
      throw this.fail(err);
    }
    this.hash = hash;
    return this.sync();
  }

  /** One fdatasync for every write made before it starts: a write during a sync waits for the next. */
  private sync(): Promise<void> {
    if (this.queued) return this.queued;
    const start = (): Promise<void> => {
      this.running = new Promise<void>((resolve, reject) => {
        fdatasync(this.fd!, (err) => (err ? reject(this.fail(err)) : resolve()));
      }).finally(() => {
        this.running = undefined;
      });
      return this.running;
    };
    if (!this.running) return start();
    this.queued = this.running
      .catch(() => {})
      .then(() => {
        this.queued = undefined;
        return this.failed === undefined ? start() : Promise.reject(this.failed);
      });
    return this.queued;
  }

  private fail(err: unknown): unknown {
    this.failed ??= LocalFileError.from(err, 'ledger journal', this.path) ?? err;
    return this.failed;
  }

  /** Waits for the syncs under way, then closes the file. */
  async close(): Promise<void> {
    await (this.queued ?? this.running)?.catch(() => {});
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
