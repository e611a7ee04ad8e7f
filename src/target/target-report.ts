import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { LocalFileError, UsageError } from '../errors.js';
import { assertParentDirectory, isStreamTarget, openWriteStream } from '../files/file-streams.js';
import { stringifyJson } from '../lib/exact-number.js';
import { drained } from '../output/write.js';

/**
 * The target's report (`report_path`): one JSON line per record's outcome (each row of each
 * stream: its stream, stdin line, key, status, id, error), per removal, and with `plan: true` per
 * change (old -> new, adds, removals), then a summary line. Written anew each run (a device or a
 * FIFO is written as a stream); what the server sent is masked (the API key) before it is written.
 */
export class TargetReport {
  private failure: unknown;

  private constructor(
    private readonly out: Writable,
    private readonly path: string,
    private readonly redact: (text: string) => string,
  ) {
    out.on('error', (err) => (this.failure ??= reportError(path, err)));
  }

  static async open(path: string, redact: (text: string) => string, signal: AbortSignal): Promise<TargetReport> {
    assertParentDirectory('report', path);
    try {
      const out = isStreamTarget(path) ? await openWriteStream(path, signal) : createWriteStream(path, { flags: 'w' });
      if ('pending' in out && out.pending)
        await new Promise<void>((resolve, reject) => {
          out.once('ready', resolve);
          out.once('error', reject);
        });
      return new TargetReport(out, path, redact);
    } catch (err) {
      throw signal.aborted ? signal.reason : reportError(path, err);
    }
  }

  /** One line; a promise when the file wants the writer to wait. */
  write(line: Record<string, unknown>): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (this.out.write(this.redact(stringifyJson(line)) + '\n')) return undefined;
    return drained(this.out).catch((err: unknown) => {
      throw (this.failure ??= reportError(this.path, err));
    });
  }

  async close(): Promise<void> {
    this.out.end();
    await finished(this.out).catch(() => {});
    if (this.failure !== undefined) throw this.failure;
  }
}

/** A full disk, a read-only file system or no permission: exit 8; anything else: exit 2. */
function reportError(path: string, err: unknown): Error {
  if (err instanceof UsageError || err instanceof LocalFileError) return err;
  return (
    LocalFileError.from(err, 'report', path) ??
    new UsageError(
      `report_path ${path}: cannot write the report: ${(err as Error).message}`,
      undefined,
      'report_unwritable',
    )
  );
}
