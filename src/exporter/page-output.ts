import type { Writable } from 'node:stream';
import { LocalFileError, OutputClosedError, UsageError } from '../errors.js';
import { sameAccount } from '../config/account-identity.js';
import { writeFlushed } from '../output/write.js';
import type { CommitLog } from './commit-log.js';
import { NO_CRASH, type CrashHook } from './crash-points.js';
import { shellWord } from '../lib/shell-word.js';
import { checkFileOwner, claimFile, releaseFile } from './file-owner.js';
import { FileSink, type FileRecord } from './file-sink.js';
import { gzipMember } from './gzip-pages.js';
import { acquireFileLock } from './lock.js';
import type { PageFormat } from './page-format.js';
import type { RunPlan } from './export-run-options.js';
import type { Position } from './export-state.js';

/** Bytes of one page (or several), in order. */
interface PageBytesOut {
  pieces: Buffer[];
  size: number;
}

/**
 * Where a run's pages go: the output file (under the commit protocol: see FileSink) or stdout.
 * It adds the preamble before the first bytes of a new output, makes each page one gzip member
 * with --compress gzip, and feeds the commit log's checksum. It commits nothing itself.
 */
export class PageOutput {
  private needPreamble: boolean;
  // The state must name the file (at its committed length) before anything is written to it,
  // so that a crash during the first page leaves a tail the next run knows to cut.
  private fileRecorded: boolean;

  private readonly stdout: Writable;
  readonly sink: FileSink | undefined;
  private readonly format: PageFormat;
  private readonly compress: 'gzip' | undefined;
  private readonly log: CommitLog;
  private readonly crash: CrashHook;

  constructor(parts: {
    /** Where the pages go without a file. */
    stdout: Writable;
    sink: FileSink | undefined;
    format: PageFormat;
    compress: 'gzip' | undefined;
    log: CommitLog;
    plan: RunPlan;
    crash?: CrashHook;
  }) {
    ({ stdout: this.stdout, sink: this.sink, format: this.format, compress: this.compress, log: this.log } = parts);
    this.crash = parts.crash ?? NO_CRASH;
    this.needPreamble = this.sink ? this.sink.offset === 0 : true;
    this.fileRecorded = parts.plan.fileStart?.mode !== 'new' || !parts.plan.store;
  }

  /** What the state records for the output at `bytes` (a file's length), or its committed length. */
  record(bytes?: number): FileRecord | { kind: 'stdout' } {
    return this.sink ? this.sink.record(bytes) : { kind: 'stdout' };
  }

  /** The pages as they go out: the preamble before the first bytes, and with gzip each page one complete member. */
  async prepare(pages: readonly PageBytesOut[]): Promise<PageBytesOut> {
    const parts = [...pages];
    if (this.needPreamble && parts.length > 0) {
      const preamble = this.format.preamble();
      if (preamble.length > 0)
        parts[0] = { pieces: [preamble, ...parts[0].pieces], size: parts[0].size + preamble.length };
    }
    // gzip: the committed lengths, tail hash and manifest checksum are of the members, as on disk.
    if (this.compress === 'gzip') {
      await Promise.all(
        parts.map(async (part, i) => {
          if (part.size === 0) return;
          const member = await gzipMember(part.pieces, part.size);
          parts[i] = { pieces: [member], size: member.length };
        }),
      );
    }
    return { pieces: parts.flatMap((part) => part.pieces), size: parts.reduce((sum, part) => sum + part.size, 0) };
  }

  /**
   * Writes prepared bytes after what `pos` committed: into the file at the committed offset and
   * fsynced (`page`: the page the crash hook sees), or to stdout, flushed. Returns the output's
   * length to commit (0 for stdout).
   */
  async write(out: PageBytesOut, pos: Position, page: number): Promise<number> {
    const { sink } = this;
    let bytes = pos.output.kind === 'file' ? pos.output.bytes : 0;
    if (sink && out.size > 0 && !this.fileRecorded) {
      await this.log.save({ ...pos, output: sink.record() });
      this.fileRecorded = true;
    }
    if (sink) bytes = out.size > 0 ? await sink.write(out.pieces, page, this.crash) : sink.offset;
    // One copy for a stream: its write callback may come before a consumer read the bytes, and
    // the pooled blocks are about to serve the next page.
    else if (out.size > 0)
      await writeFlushed(this.stdout, Buffer.concat(out.pieces, out.size)).catch((err) =>
        Promise.reject(outputError(err)),
      );
    this.needPreamble = false;
    this.log.wrote(out.pieces);
    return bytes;
  }

  /** Records that the state now holds `bytes` as the file's committed length. */
  committed(bytes: number): void {
    this.sink?.committed(bytes);
  }
}

/**
 * Opens the output file under its own lock (by device and inode; `dir`: the config directory). A state resuming a file that
 * another state writes now is refused before anything is cut; any other state run claims it.
 */
export async function openOutput(dir: string, plan: RunPlan, path: string): Promise<FileSink> {
  // A one-off export needs no config directory: where none can be written, it replaces the file unlocked.
  const oneOff = plan.fileStart?.mode === 'temp';
  const resuming = plan.fileStart?.mode === 'resume';
  const sink = await FileSink.open(path, plan.fileStart!, async (fileId) => {
    const lock = await acquireFileLock(dir, fileId, path).catch((err) =>
      oneOff && (err instanceof LocalFileError || err?.code === 'config_dir_unusable')
        ? undefined
        : Promise.reject(err),
    );
    try {
      if (resuming) checkFileOwner(dir, fileId, plan.key!, path);
    } catch (err) {
      await lock?.release();
      throw err;
    }
    return lock;
  }).catch((err) => Promise.reject(namingTheFilesState(err, plan, path)));
  try {
    if (plan.key) claimFile(dir, sink.fileId, plan.key);
  } catch (err) {
    await sink.close();
    throw err;
  }
  return sink;
}

/**
 * A file another state key writes (the same file exported with another key, or under an explicit
 * --state-key) is `file_not_empty` for this key: the hint names that key, and says whether this
 * account may continue it (a state of another account refuses to).
 */
function namingTheFilesState(err: unknown, plan: RunPlan, path: string): unknown {
  if (!(err instanceof UsageError) || err.code !== 'file_not_empty' || !plan.store) return err;
  const owner = plan.store
    .list(() => {})
    .find((s) => s.key !== plan.key && s.current.output.kind === 'file' && s.current.output.path === path);
  if (!owner) return err;
  const theirs = !sameAccount(owner.account, plan.account);
  return new UsageError(
    err.message,
    theirs
      ? `export state "${owner.key}" of the account ${owner.account} writes this file, not this key's (${plan.account}): ` +
          'choose a new file, or pass --full to replace its content'
      : `export state "${owner.key}" (profile "${owner.profile}") writes this file: ` +
          `--state-key ${shellWord(owner.key)} continues it; or choose a new file, or pass --full to replace its content`,
    err.code,
  );
}

/**
 * The output file this run made and never wrote a page to is removed, with its record (a failed first
 * run leaves no empty file).
 */
export async function discardUnusedOutput(dir: string, plan: RunPlan, sink: FileSink): Promise<void> {
  if ((await sink.discardUnused()) && plan.key) releaseFile(dir, sink.fileId, plan.key);
}

function outputError(err: unknown): unknown {
  return (err as NodeJS.ErrnoException)?.code === 'EPIPE' ? new OutputClosedError() : err;
}
