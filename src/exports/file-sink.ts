import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { crashPoint } from './crash-points.js';

/** What the state knows of the file: its committed length, or nothing (a new or replaced file). */
export type FileStart = { mode: 'resume'; committed: number } | { mode: 'new' } | { mode: 'replace' };

/**
 * The output file under the commit protocol: a page is written at the committed offset and
 * fsynced before the state records the new length, so whatever follows the committed length
 * was never committed. Opening cuts such a tail, and refuses a file shorter than committed.
 */
export class FileSink {
  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    private end: number,
    /** Bytes of uncommitted tail cut when resuming (a replaced file does not count). */
    readonly cut: number,
  ) {}

  static async open(path: string, start: FileStart): Promise<FileSink> {
    const existing = await stat(path).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
    checkStart(path, existing, start);
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT).catch((err: NodeJS.ErrnoException) => {
      // A missing directory or no permission is the user's to fix, not a bug.
      throw new UsageError(`--out ${path}: cannot open the file (${err.code ?? err.message})`, 'check that the directory exists and is writable');
    });
    try {
      if (!existing) await syncDir(dirname(path));
      const size = existing?.size ?? 0;
      const keep = start.mode === 'resume' ? start.committed : 0;
      if (size > keep) {
        await fh.truncate(keep);
        await fh.sync();
      }
      return new FileSink(path, fh, keep, start.mode === 'resume' ? Math.max(0, size - keep) : 0);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** The committed length: where the next page goes. */
  get offset(): number {
    return this.end;
  }

  /** Writes a page (its pieces in order) at the committed offset and fsyncs it; returns the length to commit. */
  async write(pieces: readonly Buffer[], page: number): Promise<number> {
    if (crashPoint('mid-write', page)) {
      // Test hook: half a page on disk, then SIGKILL.
      const whole = Buffer.concat(pieces);
      await this.fh.write(whole, 0, whole.length >> 1, this.end);
      await this.fh.sync();
      crashPoint('mid-write', page, true);
    }
    let at = this.end;
    for (const piece of pieces) {
      let done = 0;
      while (done < piece.length) {
        const { bytesWritten } = await this.fh.write(piece, done, piece.length - done, at + done);
        done += bytesWritten;
      }
      at += piece.length;
    }
    await this.fh.sync();
    crashPoint('after-fsync', page, true);
    return at;
  }

  /** Records that the state now holds `end` as the committed length. */
  committed(end: number): void {
    this.end = end;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

function checkStart(path: string, existing: Stats | undefined, start: FileStart): void {
  if (existing && !existing.isFile()) throw new UsageError(`--out ${path}: not a regular file`);
  const size = existing?.size ?? 0;
  if (start.mode === 'resume' && size < start.committed) {
    const what = existing ? `has ${size} bytes` : 'is missing';
    throw new UsageError(
      `--out ${path} ${what}, but the export state has ${start.committed} bytes committed to it (rotated, truncated or edited?)`,
      'run again with --full to export everything into it afresh, or write to a new file (another --out) to continue from the saved cursor',
      'file_shorter_than_committed',
    );
  }
  if (start.mode === 'new' && size > 0) {
    throw new UsageError(
      `--out ${path} already holds ${size} bytes that this export state did not write`,
      'choose a new file, or pass --full to replace its content',
      'file_not_empty',
    );
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => undefined);
  if (!fh) return;
  await fh.sync().catch(() => {});
  await fh.close();
}
