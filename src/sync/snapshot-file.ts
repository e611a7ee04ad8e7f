import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Hash } from 'node:crypto';
import { parseJson } from '../http/exact-json.js';
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
 * `digest`. Stops at the first signal. Throws SnapshotDamage at a line that is not an export
 * row, or when the range does not end with a whole line.
 */
export async function indexRange(path: string, from: number, to: number, index: SnapshotIndex, digest: Hash, signal: AbortSignal): Promise<void> {
  if (to <= from) return;
  const fh = await open(path, 'r');
  try {
    let carry: Buffer = Buffer.alloc(0);
    let carryAt = from;
    for (let at = from; at < to;) {
      signal.throwIfAborted();
      const want = Math.min(CHUNK, to - at);
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(chunk, 0, want, at);
      if (bytesRead === 0) throw new SnapshotDamage(`it ends at byte ${at}, before the ${to} bytes its state committed`);
      const got = chunk.subarray(0, bytesRead);
      digest.update(got);
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
  if (keys && (NOT_ASCII.test(keys.id) || (keys.email !== null && NOT_ASCII.test(keys.email)))) keys = rowKeys(Buffer.from(latin1, 'latin1').toString('utf8'));
  if (!keys) throw new SnapshotDamage(`the line at byte ${offset} is not an exported contact`);
  index.add(keys.id, keys.email, keys.updatedMs, offset, length);
}

/** Reads contacts back from the snapshot file by their index slots (one read of one line each). */
export class SnapshotReader {
  private fd: number | undefined;
  private buf = Buffer.alloc(64 * 1024);

  constructor(path: string, private readonly index: SnapshotIndex) {
    this.fd = openSync(path, 'r');
  }

  /** The contact in a slot. Throws SnapshotDamage when its line no longer parses as one. */
  read(slot: number): SnapshotContact {
    const { offset, length, updatedMs } = this.index.line(slot);
    if (this.buf.length < length) this.buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd!, this.buf, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    let row: unknown;
    try {
      row = parseJson(this.buf.toString('utf8', 0, done));
    } catch {
      row = undefined;
    }
    if (typeof row !== 'object' || row === null || typeof (row as { id?: unknown }).id !== 'string') {
      throw new SnapshotDamage(`the line at byte ${offset} no longer holds an exported contact`);
    }
    const r = row as Record<string, unknown>;
    const fields = typeof r.fields === 'object' && r.fields !== null && !Array.isArray(r.fields) ? (r.fields as Record<string, unknown>) : {};
    return { id: r.id as string, email: typeof r.email === 'string' ? r.email : null, subscriptionStatus: r.subscriptionStatus, updatedAt: r.updatedAt, fields, offset, updatedMs };
  }

  /** Closes the file (once: a second call does nothing). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
