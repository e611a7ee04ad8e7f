import { constants } from 'node:fs';
import { open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LocalFileError, UsageError } from '../errors.js';
import { NO_CRASH, type CrashHook } from './crash-points.js';
import { checkIdentity, fileIdOf, nextTail, readTail, tailHash, type FileIdentity } from './file-check.js';
import type { ExportLock } from './lock.js';
import { removeDeadTemps, tempPathBeside } from '../files/temp-files.js';

/**
 * What the state knows of the file: its committed length and identity (resume), nothing (a new
 * file), a file --full empties in place (replace), or a one-off export (temp: written beside the
 * file and renamed over it at the end).
 */
export type FileStart =
  | { mode: 'resume'; committed: number; identity: FileIdentity }
  | { mode: 'new' }
  | { mode: 'replace' }
  | { mode: 'temp' };

/**
 * Locks an output file by its `<dev>:<ino>` before anything is cut or written (undefined: no lock
 * could be had, and none is needed).
 */
type LockFile = (fileId: string) => Promise<ExportLock | undefined>;

/** The state's record of the file at a length. */
export interface FileRecord extends FileIdentity {
  kind: 'file';
  path: string;
  bytes: number;
}

/**
 * The output file under the commit protocol: a page is written at the committed offset and
 * fsynced before the state records the new length, so whatever follows the committed length
 * was never committed. Opening proves the file is the one committed to (device, inode, hash of
 * the committed tail), locks it, then cuts an uncommitted tail.
 */
export class FileSink {
  private tail: Buffer = Buffer.alloc(0);
  private written?: { end: number; tail: Buffer };

  readonly path: string;
  private readonly fh: FileHandle;
  /** `<dev>:<ino>` of the file written. */
  readonly fileId: string;
  private end: number;
  /** Bytes of uncommitted tail cut when resuming (a replaced file does not count). */
  readonly cut: number;
  private readonly lock: ExportLock | undefined;
  /** A one-off export's temporary file, renamed over `path` by finish(). */
  private readonly temp?: string;

  private constructor(parts: {
    path: string;
    fh: FileHandle;
    fileId: string;
    end: number;
    cut: number;
    lock: ExportLock | undefined;
    temp?: string;
  }) {
    ({ path: this.path, fh: this.fh, fileId: this.fileId, end: this.end, cut: this.cut, lock: this.lock } = parts);
    this.temp = parts.temp;
  }

  static async open(path: string, start: FileStart, lockFile?: LockFile): Promise<FileSink> {
    if (start.mode === 'temp') return FileSink.openTemp(path, lockFile);
    const fail = (err: unknown) => Promise.reject(fileError(err, path));
    // Opened first and checked through the descriptor: the path cannot change under the checks.
    const flags = constants.O_RDWR | (start.mode === 'resume' ? 0 : constants.O_CREAT);
    // Made new (O_EXCL) or found: a file this run made and never wrote to is removed again by discardUnused().
    let created = start.mode !== 'resume';
    const fh = await open(path, flags | (created ? constants.O_EXCL : 0), 0o666)
      .catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') return Promise.reject(err);
        created = false;
        return open(path, flags, 0o666);
      })
      .catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && start.mode === 'resume') throw shorter(path, undefined, start.committed);
        return fail(err);
      });
    let lock: ExportLock | undefined;
    try {
      const st = await fh.stat({ bigint: true });
      if (!st.isFile()) throw new UsageError(`--out ${path}: not a regular file`);
      const fileId = fileIdOf(st);
      lock = await lockFile?.(fileId);
      const size = Number(st.size);
      let tail: Buffer = Buffer.alloc(0);
      if (start.mode === 'resume') {
        const identity = start.identity;
        // The device and inode first: another file is refused before its bytes are read.
        checkIdentity(path, { file: identity.file }, { file: fileId, tail }, start.committed);
        if (size < start.committed) throw shorter(path, size, start.committed);
        tail = await readTail(fh, start.committed);
        checkIdentity(path, identity, { file: fileId, tail }, start.committed);
      }
      if (start.mode === 'new' && size > 0) {
        throw new UsageError(
          `--out ${path} already holds ${size} bytes that this export state did not write`,
          'choose a new file, or pass --full to replace its content',
          'file_not_empty',
        );
      }
      await syncDir(dirname(path));
      const keep = start.mode === 'resume' ? start.committed : 0;
      // --full (replace) empties the file by empty(), once the state names it at length 0.
      if (size > keep && start.mode !== 'replace') {
        await fh.truncate(keep).catch(fail);
        await fh.sync().catch(fail);
      }
      const cut = start.mode === 'resume' ? Math.max(0, size - keep) : 0;
      const sink = new FileSink({ path, fh, fileId, end: keep, cut, lock });
      sink.tail = tail;
      sink.created = created;
      return sink;
    } catch (err) {
      await fh.close();
      await lock?.release();
      throw fileError(err, path);
    }
  }

  /**
   * A one-off export: written to a new temporary file beside the output (O_EXCL, so a planted
   * symlink is never followed) and renamed over it by finish(). The file it replaces is locked,
   * so it cannot be a file another run appends to. A symlink at the path keeps pointing where it
   * did: its target is replaced.
   */
  private static async openTemp(path: string, lockFile?: LockFile): Promise<FileSink> {
    const target = await realpath(path).catch((err: NodeJS.ErrnoException) =>
      err.code === 'ENOENT' ? path : Promise.reject(fileError(err, path)),
    );
    const existing = await stat(target, { bigint: true }).catch(() => undefined);
    if (existing && !existing.isFile()) throw new UsageError(`--out ${path}: not a regular file`);
    const lock = existing ? await lockFile?.(fileIdOf(existing)) : undefined;
    try {
      removeDeadTemps(target);
      const temp = tempPathBeside(target);
      const mode = existing ? Number(existing.mode) & 0o777 : 0o666;
      const fh = await open(temp, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, mode).catch((err) =>
        Promise.reject(fileError(err, temp)),
      );
      // The file it replaces keeps its permissions (the umask does not narrow them).
      if (existing) await fh.chmod(mode).catch(() => {});
      const st = await fh.stat({ bigint: true });
      return new FileSink({ path: target, fh, fileId: fileIdOf(st), end: 0, cut: 0, lock, temp });
    } catch (err) {
      await lock?.release();
      throw err;
    }
  }

  /** The committed length: where the next page goes. */
  get offset(): number {
    return this.end;
  }

  /** What the state records for the file at `end` (the committed length, or the one just written). */
  record(end = this.end): FileRecord {
    const tail = this.written?.end === end && end !== this.end ? this.written.tail : this.tail;
    return { kind: 'file', path: this.path, bytes: end, file: this.fileId, tail: tailHash(tail) };
  }

  /** Writes a page (its pieces in order) at the committed offset and fsyncs it; returns the length to commit. */
  async write(pieces: readonly Buffer[], page: number, crash: CrashHook = NO_CRASH): Promise<number> {
    try {
      if (crash.at('mid-write', page)) {
        // Test hook: half a page on disk, then SIGKILL.
        const whole = Buffer.concat(pieces);
        await this.fh.write(whole, 0, whole.length >> 1, this.end);
        await this.fh.sync();
        crash.at('mid-write', page, true);
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
      crash.at('after-fsync', page, true);
      this.written = { end: at, tail: nextTail(this.tail, pieces) };
      return at;
    } catch (err) {
      throw fileError(err, this.path);
    }
  }

  /** Empties the file (--full), after the state recorded it at length 0. */
  async empty(): Promise<void> {
    await this.fh.truncate(0).catch((err) => Promise.reject(fileError(err, this.path)));
    await this.fh.sync().catch((err) => Promise.reject(fileError(err, this.path)));
    this.end = 0;
    this.tail = Buffer.alloc(0);
  }

  /** Records that the state now holds `end` as the committed length. */
  committed(end: number): void {
    if (this.written?.end === end) this.tail = this.written.tail;
    this.end = end;
  }

  /** A one-off export that succeeded: the temporary file replaces the output, durably. */
  async finish(): Promise<void> {
    if (!this.temp) return;
    try {
      await this.fh.truncate(this.end);
      await this.fh.sync();
      await rename(this.temp, this.path);
    } catch (err) {
      throw fileError(err, this.path);
    }
    this.renamed = true;
    await syncDir(dirname(this.path));
  }

  private renamed = false;
  /** This run made the file (it was not there before). */
  private created = false;

  /**
   * A file this run made and never wrote a page to (the run failed before its first page: a key
   * without the endpoint) is removed, so a failed first export leaves no empty file behind.
   * Call before close(), under the file's lock. Whether it was removed.
   */
  async discardUnused(): Promise<boolean> {
    if (!this.created || this.written !== undefined || this.end !== 0 || this.temp) return false;
    try {
      const [mine, there] = await Promise.all([this.fh.stat({ bigint: true }), stat(this.path, { bigint: true })]);
      // Only the file this run made: not one that replaced it at the path meanwhile, nor one with content.
      if (fileIdOf(mine) !== fileIdOf(there) || mine.size !== 0n) return false;
      await unlink(this.path);
      return true;
    } catch {
      return false; // gone already, or not ours to remove: leave it
    }
  }

  /** Closes the file and releases its lock; a one-off export that did not finish removes its temporary file. */
  async close(): Promise<void> {
    await this.fh.close().catch(() => {});
    if (this.temp && !this.renamed) await unlink(this.temp).catch(() => {});
    await this.lock?.release();
  }
}

function shorter(path: string, size: number | undefined, committed: number): UsageError {
  const what = size !== undefined ? `has ${size} bytes` : 'is missing';
  return new UsageError(
    `--out ${path} ${what}, but the export state has ${committed} bytes committed to it (rotated, truncated or edited?)`,
    'run again with --full to export everything into it afresh, ' +
      'or write to a new file (another --out) to continue from the saved cursor',
    'file_shorter_than_committed',
  );
}

/** A full disk, a read-only file system or a denied write is exit 8; a missing directory is the user's to fix. */
function fileError(err: unknown, path: string): unknown {
  if (err instanceof UsageError) return err;
  const typed = LocalFileError.from(err, 'output file', path);
  if (typed) return typed;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP') {
    return new UsageError(
      `--out ${path}: cannot open the file (${code})`,
      'check that the directory exists and is writable',
    );
  }
  return err;
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => undefined);
  if (!fh) return;
  await fh.sync().catch(() => {});
  await fh.close();
}
