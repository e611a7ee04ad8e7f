import type { Hash } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { readRegularFileSync, writeRegularFileSync } from '../lib/regular-file.js';
import { z } from 'zod';
import { LocalFileError } from '../errors.js';
import type { ExportReporter } from '../exporter/run-summary.js';

/** Which CONTACT fields existed when the lines from byte `from` on were exported, and their labels then (labels[i] is keys[i]'s). */
const segmentSchema = z
  .object({ from: z.number().int().nonnegative(), keys: z.array(z.string()), labels: z.array(z.string()) })
  .refine((s) => s.labels.length === s.keys.length, { message: 'a label for each key' });

const recordSchema = z.object({
  // 3: the SHA-256 seals the labels too (an older record is no record: the snapshot is rebuilt).
  version: z.literal(3),
  /** The export state key whose file this is. */
  key: z.string(),
  /** Bytes of the file this record vouches for. */
  bytes: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
  contacts: z.number().int().nonnegative(),
  /** When the last full refresh started the file. */
  fullAt: z.string(),
  fields: z.array(segmentSchema),
  /** The seal: a SHA-256 of the file's first `bytes` bytes, then of every member above (`sealOf`). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/**
 * The seal of a sync's snapshot, beside its file: everything the skip decision reads (the rows of
 * the file's first `bytes` bytes, and the field keys and labels in force when each part of it was
 * fetched: the export keys a line's fields by the labels of then) under one SHA-256. A row or a
 * label edited, a record missing or not parsing: the seal does not match, and the snapshot is
 * rebuilt. (The export state's own checks, of the file's last 64 KiB and its length, guard the
 * export's appends; this covers every byte.) Written whole (temp file, fsync, rename), mode 0600.
 */
export type SnapshotRecord = z.infer<typeof recordSchema>;

/** A record without its seal: what `sealOf` seals. */
export type UnsealedRecord = Omit<SnapshotRecord, 'version' | 'sha256'>;

/** The seal of `record` over the file bytes fed to `rows` (left as it is: a copy is sealed). */
function sealOf(rows: Hash, record: UnsealedRecord): string {
  const { key, bytes, lines, contacts, fullAt, fields } = record;
  return rows
    .copy()
    .update(`\n${JSON.stringify([key, bytes, lines, contacts, fullAt, fields])}`)
    .digest('hex');
}

/** Whether `record`'s seal is that of its members and of the file bytes fed to `rows`. */
export function sealMatches(record: SnapshotRecord, rows: Hash): boolean {
  return sealOf(rows, record) === record.sha256;
}

/** The record beside a snapshot, or undefined when it is missing or does not parse (then the snapshot is not trusted). */
export function readSnapshotRecord(path: string): SnapshotRecord | undefined {
  return readWhole(path, recordSchema);
}

/** Writes the record of `record`, sealed over the file bytes fed to `rows`. */
export function writeSnapshotRecord(path: string, record: UnsealedRecord, rows: Hash): void {
  const sealed: SnapshotRecord = { version: 3, ...record, sha256: sealOf(rows, record) };
  writeWhole(path, JSON.stringify(sealed), 'sync snapshot record');
}

/** A JSON file of the sync that `schema` accepts, or undefined when it is missing or does not parse. */
export function readWhole<T>(path: string, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    // Never blocks on a FIFO put in its place, never follows a link: such a record is no record.
    text = readRegularFileSync(path, { nofollow: true }).toString('utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a file of the sync whole or not at all (a temp file beside it, fsync, rename; mode 0600), never through a link. */
export function writeWhole(path: string, text: string, what: string): void {
  try {
    writeRegularFileSync(path, text, { mode: 0o600, link: 'refuse' });
  } catch (err) {
    throw LocalFileError.from(err, what, path) ?? err;
  }
}

/** How often, at most, a refresh writes its record while it runs. */
const INTERVAL_MS = 1000;
const CHUNK = 1 << 20;

/**
 * The seal kept up to date while a refresh runs: after a page is committed (at most once a
 * second), the bytes committed since are fed to the digest and a record sealing all of them is
 * written. A run killed during a refresh (the first one of a large account takes minutes) so
 * leaves a sealed record of what it committed, and the next run continues from the export's
 * committed position instead of refreshing everything again.
 */
export class RefreshCheckpoint {
  private hashedTo: number;
  private lastWrite = -Infinity;

  /**
   * `from`: the bytes before it are in `digest` already. `committed`: what the export's state has
   * committed now. `record`: the record of the first `bytes` bytes, to seal and write.
   */
  constructor(
    private readonly o: {
      path: string;
      recordPath: string;
      digest: Hash;
      from: number;
      now(): number;
      committed(): number;
      record(bytes: number): UnsealedRecord;
    },
  ) {
    this.hashedTo = o.from;
  }

  /** Where the digest stops: the bytes from here on are not in it yet. */
  get hashed(): number {
    return this.hashedTo;
  }

  /** The export's reporter, with this checkpoint after each page it reports (a page is reported once committed). */
  reporting(reporter: ExportReporter): ExportReporter {
    return {
      page: (rows, pages) => {
        reporter.page(rows, pages);
        this.page();
      },
      done: (summary, how) => reporter.done(summary, how),
    };
  }

  private page(): void {
    if (this.o.now() - this.lastWrite < INTERVAL_MS) return;
    const to = this.o.committed();
    if (to <= this.hashedTo || !this.hashTo(to)) return;
    writeSnapshotRecord(this.o.recordPath, this.o.record(this.hashedTo), this.o.digest);
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
