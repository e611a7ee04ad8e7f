import { closeSync, constants, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Hash } from 'node:crypto';
import { LocalFileError } from '../errors.js';
import { parseJson } from '../json/exact-json.js';
import { rowKeys } from './row-keys.js';
import type { SnapshotIndex } from './snapshot-index.js';

/** A snapshot line that is not an export row: the snapshot is damaged and must not be trusted. */
export class SnapshotDamage extends Error {}

/** One contact as the snapshot holds it: its export row, as the API sent it (numbers exact). */
export interface SnapshotContact {
  id: string;
  email: string | null;
  subscriptionStatus: unknown;
  updatedAt: unknown;
  /** Field values keyed by label, as the export keys them. */
  fields: Record<string, unknown>;
  /** Where its line starts in the snapshot file. */
  offset: number;
  updatedMs: number;
}

const CHUNK = 1 << 20;

/**
 * Indexes the lines of bytes [from, to) of the snapshot file, and feeds exactly those bytes to
 * `digest` (none: they were hashed as the refresh wrote them). Stops at the first signal. Throws SnapshotDamage at a line that is not an export
 * row, or when the range does not end with a whole line.
 */
export async function indexRange(
  path: string,
  from: number,
  to: number,
  index: SnapshotIndex,
  digest: Hash | undefined,
  signal: AbortSignal,
  keep?: KeptBytes,
): Promise<void> {
  if (to <= from) return;
  // Never blocks on a FIFO put in its place, never follows a link (the run's lock guards the rest).
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!(await fh.stat()).isFile()) throw new SnapshotDamage('it is no longer a regular file');
    let carry: Buffer = Buffer.alloc(0);
    let carryAt = from;
    for (let at = from; at < to;) {
      signal.throwIfAborted();
      const want = Math.min(CHUNK, to - at);
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(chunk, 0, want, at);
      if (bytesRead === 0)
        throw new SnapshotDamage(`it ends at byte ${at}, before the ${to} bytes its state committed`);
      const got = chunk.subarray(0, bytesRead);
      digest?.update(got);
      keep?.add(got);
      at += bytesRead;
      const buf = carry.length === 0 ? got : Buffer.concat([carry, got]);
      // Read as latin1: one character a byte, so a line's place in the text is its place in the file.
      const text = buf.toString('latin1');
      let start = 0;
      for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
        indexLine(index, text.slice(start, nl), carryAt + start, nl - start);
        start = nl + 1;
      }
      carry = buf.subarray(start);
      carryAt += start;
    }
    if (carry.length > 0) throw new SnapshotDamage(`its last ${carry.length} bytes are not a whole line`);
  } finally {
    await fh.close();
  }
}

const NOT_ASCII = /[^\x00-\x7f]/;

/** Indexes one line, read as latin1: an id or email with other characters is read again as the UTF-8 it is. */
function indexLine(index: SnapshotIndex, latin1: string, offset: number, length: number): void {
  let keys = rowKeys(latin1);
  if (keys && (NOT_ASCII.test(keys.id) || (keys.email !== null && NOT_ASCII.test(keys.email))))
    keys = rowKeys(Buffer.from(latin1, 'latin1').toString('utf8'));
  if (!keys) throw new SnapshotDamage(`the line at byte ${offset} is not an exported contact`);
  index.add(keys.id, keys.email, offset, length);
}

/**
 * The bytes of a small snapshot, kept as they are read for the index, so that rows are read
 * back from memory rather than by a system call each; dropped past `limit` (a large snapshot
 * is read from its file).
 */
export class KeptBytes {
  private chunks: Buffer[] | undefined = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (!this.chunks) return;
    this.size += chunk.length;
    if (this.size > this.limit) this.chunks = undefined;
    else this.chunks.push(Buffer.from(chunk));
  }

  /** The whole file, when it was kept from its first byte to its last. */
  whole(): Buffer | undefined {
    return this.chunks && Buffer.concat(this.chunks);
  }
}

/** Reads contacts back from the snapshot by their index slots: from the kept bytes, else one read of one line each. */
export class SnapshotReader {
  private fd: number | undefined;
  private buf = Buffer.alloc(64 * 1024);

  constructor(
    private readonly path: string,
    private readonly index: SnapshotIndex,
    private readonly whole?: Buffer,
  ) {
    this.fd = whole ? undefined : openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  }

  /** The contact in a slot. Throws (exit 8) when its line no longer parses as one. */
  read(slot: number): SnapshotContact {
    const { offset, length } = this.index.line(slot);
    let row: unknown;
    try {
      row = parseJson(this.text(offset, length));
    } catch {
      row = undefined;
    }
    if (typeof row !== 'object' || row === null || typeof (row as { id?: unknown }).id !== 'string') {
      // The file passed its checksum when indexed: changed since, under this run's lock.
      throw new LocalFileError(
        'sync snapshot',
        this.path,
        'EIO',
        `the line at byte ${offset} no longer holds an exported contact (changed during the run?); run again with --full-refresh`,
      );
    }
    const r = row as Record<string, unknown>;
    const fields =
      typeof r.fields === 'object' && r.fields !== null && !Array.isArray(r.fields)
        ? (r.fields as Record<string, unknown>)
        : {};
    const updatedMs = typeof r.updatedAt === 'string' ? Date.parse(r.updatedAt) : Number.NaN;
    return {
      id: r.id as string,
      email: typeof r.email === 'string' ? r.email : null,
      subscriptionStatus: r.subscriptionStatus,
      updatedAt: r.updatedAt,
      fields,
      offset,
      updatedMs,
    };
  }

  private text(offset: number, length: number): string {
    if (this.whole) return this.whole.toString('utf8', offset, offset + length);
    if (this.buf.length < length) this.buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd!, this.buf, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return this.buf.toString('utf8', 0, done);
  }

  /** Closes the file (once: a second call does nothing). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
