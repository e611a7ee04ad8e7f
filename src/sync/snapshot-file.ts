import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { LocalFileError } from '../errors.js';
import type { Seal } from '../exporter/export-state.js';
import { parseJson } from '../json/exact-json.js';
import { rowKeys } from './row-keys.js';
import { SnapshotIndex } from './snapshot-index.js';
import { sealOf, type Sealed, type Segment } from './snapshot-seal.js';

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

/** A snapshot up to this size is kept in memory for the comparisons (about 200,000 contacts). */
const IN_MEMORY_BYTES = 64 * 2 ** 20;

/**
 * The snapshot's bytes as they are taken in, in file order: each line indexed (SnapshotIndex),
 * every byte fed to the seal's digest, and a small snapshot's bytes kept, so that rows are read
 * back from memory rather than by a system call each (a large one is never held, even in part).
 * A refresh feeds it the sealed part of the file, then each page as it arrives, before the page
 * is appended: nothing written is read back.
 */
export class SnapshotBytes {
  readonly index = new SnapshotIndex();
  /** Bytes taken in: the place in the file of the next one. */
  size = 0;
  private readonly digest = createHash('sha256');
  private kept: Buffer[] | undefined = [];
  private carry: Buffer = Buffer.alloc(0);

  /** Takes in the next bytes. Throws SnapshotDamage at a line that is not an export row. */
  add(chunk: Buffer): void {
    this.digest.update(chunk);
    if (this.kept && this.size + chunk.length > IN_MEMORY_BYTES) this.kept = undefined;
    this.kept?.push(Buffer.from(chunk));
    const buf = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const at = this.size - this.carry.length;
    this.size += chunk.length;
    // Read as latin1: one character a byte, so a line's place in the text is its place in the file.
    const text = buf.toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      indexLine(this.index, text.slice(start, nl), at + start, nl - start);
      start = nl + 1;
    }
    // A copy: a page's blocks serve the next page once it is appended.
    this.carry = Buffer.from(buf.subarray(start));
  }

  /** The seal of what was taken in, vouching for its counts and `fields` (each segment's keys and labels). */
  seal(key: string, fields: Segment[]): Seal {
    return this.sealOver(key, { lines: this.index.lines, contacts: this.index.size, fields });
  }

  /** Whether `seal` is that of what was taken in and of `sealed`, what it says it vouches for. */
  matches(key: string, seal: Seal, sealed: Sealed): boolean {
    return this.sealOver(key, sealed).sha256 === seal.sha256;
  }

  private sealOver(key: string, sealed: Sealed): Seal {
    if (this.carry.length > 0) throw new SnapshotDamage(`its last ${this.carry.length} bytes are not a whole line`);
    return sealOf(this.digest, key, this.size, sealed);
  }

  /** The reader of the file these bytes are the start of (all of it, once the refresh is done). */
  reader(path: string): SnapshotReader {
    return new SnapshotReader(path, this.index, this.kept && Buffer.concat(this.kept));
  }
}

const CHUNK = 1 << 20;

/** Takes the snapshot file into `bytes` up to byte `to`, stopping at a signal; SnapshotDamage when the file is shorter. */
export async function readSnapshot(path: string, to: number, bytes: SnapshotBytes, signal: AbortSignal): Promise<void> {
  // Never blocks on a FIFO put in its place, never follows a link (ensureFile refused them; the run's lock guards the rest).
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    while (bytes.size < to) {
      signal.throwIfAborted();
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, to - bytes.size));
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, bytes.size);
      if (bytesRead === 0)
        throw new SnapshotDamage(`it ends at byte ${bytes.size}, before the ${to} bytes its state committed`);
      bytes.add(chunk.subarray(0, bytesRead));
    }
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
