import { constants } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { removeDeadTemps, tempPathBeside } from '../files/temp-files.js';
import { lockReport } from './row-report-lock.js';
import type { ResultRecord } from './unrecorded.js';
import { CliError } from '../errors.js';
import type { RowResult } from './types.js';

/**
 * The report as a file that is resumable at every moment (docs/batches.md, "Crashes"):
 *
 * 1. A new file is written beside the report (O_EXCL | O_NOFOLLOW: never a file or a link
 *    someone else placed there) with the header and the rows carried over from
 *    --resume-from-report, synced, and renamed over the report path.
 * 2. Every other row is appended as its result is released (in input order) and synced, a few
 *    rows at a time: `recorded()` counts the results on disk.
 * 3. On close, when rows were carried over, the file is rewritten the same way (temp, sync,
 *    rename) with the carried rows merged back into input order.
 *
 * A kill at any point leaves at the report path a valid report holding every result recorded
 * so far (rows may repeat; the later entry wins), and maybe a temporary file that the next run
 * on this report removes.
 */
interface ReportFile extends ResultRecord {
  /** Queues one result; a promise when the writer wants the caller to wait. Throws once writing failed. */
  write(result: RowResult): Promise<void> | undefined;
  close(): Promise<void>;
}

interface ReportFileSpec {
  path: string;
  header: string;
  format: (result: RowResult) => string;
  /** Rows an earlier report marks as done, in input order (`row`): written first, so nothing done is ever lost. */
  carried: readonly RowResult[];
  /** Turns a failed file operation into the error the command ends with. */
  fail: (err: unknown) => Error;
  /** Re-reads the appended rows to merge the carried ones back in: [row, raw CSV record] in file order. */
  records: (file: FileHandle, start: number) => AsyncIterable<[number, string]>;
}

// Above this many characters waiting, write() asks the caller to wait.
const HIGH_WATER = 1024 * 1024;

export async function openReportFile(spec: ReportFileSpec): Promise<ReportFile> {
  const { path, fail } = spec;
  const unlock = await lockReport(path).catch((err: unknown) =>
    Promise.reject(err instanceof CliError ? err : fail(err)),
  );
  const start = spec.header + spec.carried.map(spec.format).join('');
  try {
    removeDeadTemps(path);
    return new AppendedReport(spec, await writeAside(path, start, fail), Buffer.byteLength(start), unlock);
  } catch (err) {
    await unlock();
    throw err;
  }
}

/** The open report: results appended and synced a few at a time, `recorded()` counting those on disk. */
class AppendedReport implements ReportFile {
  private pending = '';
  private queued = 0;
  private done = 0;
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private failure: Error | undefined;
  private waiters: Array<() => void> = [];
  /** The carried rows this run released again (their results are the earlier ones): merged back on close. */
  private readonly carriedUsed: RowResult[] = [];

  constructor(
    private readonly spec: ReportFileSpec,
    private readonly file: FileHandle,
    /** Where the appended rows start (after the header and the carried rows). */
    private readonly appendStart: number,
    private readonly unlock: () => Promise<void>,
  ) {}

  write(result: RowResult): Promise<void> | undefined {
    if (this.failure) throw this.failure;
    this.queued++;
    if (result.earlier) this.carriedUsed.push(result);
    else this.pending += this.spec.format(result);
    this.schedule();
    return this.pending.length > HIGH_WATER && this.flushing ? this.flushing : undefined;
  }

  recorded(): number {
    return this.done;
  }

  error(): unknown {
    return this.failure;
  }

  waitBeyond(count: number): Promise<void> {
    if (this.done > count || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.flush();
    while ((this.flushing || this.pending !== '') && !this.failure) {
      await this.flushing;
      this.flush();
    }
    try {
      if (this.failure) throw this.failure;
      if (this.spec.carried.length > 0) await compact(this.spec, this.file, this.appendStart, this.carriedUsed);
    } finally {
      await this.file.close().catch(() => {});
      await this.unlock();
      this.waiters = [];
    }
  }

  /** Results released together (a whole chunk) go out in one write. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Writes and syncs what is pending, unless a write is under way (it flushes again when done). */
  private flush(): void {
    this.scheduled = false;
    if (this.flushing || this.failure) return;
    if (this.pending === '') {
      this.done = this.queued;
      return this.wake();
    }
    const text = this.pending;
    const upTo = this.queued;
    this.pending = '';
    this.flushing = (async () => {
      await writeAll(this.file, text);
      await this.file.datasync();
    })().then(
      () => {
        this.flushing = undefined;
        this.done = upTo;
        this.wake();
        this.flush();
      },
      (err: unknown) => {
        this.flushing = undefined;
        this.failure = this.spec.fail(err);
        this.wake();
      },
    );
  }

  private wake(): void {
    this.waiters.splice(0).forEach((w) => w());
  }
}

/**
 * Rewrites the report in input order: the appended rows merged with the carried rows still in
 * use. On failure the report stays as it was (a valid, unmerged report) and the temporary file
 * is removed.
 */
async function compact(
  spec: ReportFileSpec,
  file: FileHandle,
  start: number,
  carried: readonly RowResult[],
): Promise<void> {
  const out = await createAside(spec.path, spec.fail);
  let text = spec.header;
  try {
    let i = 0;
    const parts: string[] = [];
    for await (const [row, raw] of spec.records(file, start)) {
      while (i < carried.length && (carried[i].row ?? 0) < row) parts.push(spec.format(carried[i++]));
      parts.push(raw);
      if (parts.length >= 1000) text += parts.splice(0).join('');
      if (text.length > HIGH_WATER) {
        await writeAll(out.handle, text);
        text = '';
      }
    }
    while (i < carried.length) parts.push(spec.format(carried[i++]));
    text += parts.join('');
  } catch (err) {
    await out.handle.close().catch(() => {});
    await unlink(out.temp).catch(() => {});
    throw spec.fail(err);
  }
  await finishAside(out, text, spec.path, spec.fail);
}

interface Aside {
  handle: FileHandle;
  temp: string;
}

/** Writes `text` to a new file beside `path` and renames it over `path`; returns the open file for appending. */
async function writeAside(path: string, text: string, fail: (err: unknown) => Error): Promise<FileHandle> {
  const aside = await createAside(path, fail);
  await finishAside(aside, text, path, fail, true);
  return aside.handle;
}

async function createAside(path: string, fail: (err: unknown) => Error): Promise<Aside> {
  const temp = tempPathBeside(path);
  // O_EXCL fails on anything already there, a symbolic link included; O_NOFOLLOW says it twice.
  const flags = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, 0o666).catch((err: unknown) => Promise.reject(fail(err)));
  return { handle, temp };
}

async function finishAside(
  aside: Aside,
  text: string,
  path: string,
  fail: (err: unknown) => Error,
  keepOpen = false,
): Promise<void> {
  try {
    await writeAll(aside.handle, text);
    await aside.handle.datasync();
    await rename(aside.temp, path);
  } catch (err) {
    await aside.handle.close().catch(() => {});
    await unlink(aside.temp).catch(() => {});
    throw fail(err);
  }
  await syncDirectory(dirname(path));
  if (!keepOpen) await aside.handle.close();
}

async function writeAll(file: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length;) at += (await file.write(bytes, at)).bytesWritten;
}

// The rename must survive a power cut too; some file systems cannot sync a directory.
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY).catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close().catch(() => {});
}
