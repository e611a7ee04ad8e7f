import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readRegularFileSync } from '../lib/regular-file.js';
import { z } from 'zod';
import { LocalFileError } from '../errors.js';

/** Which CONTACT fields existed when the lines from byte `from` on were exported, and their labels then (labels[i] is keys[i]'s). */
const segmentSchema = z
  .object({ from: z.number().int().nonnegative(), keys: z.array(z.string()), labels: z.array(z.string()) })
  .refine((s) => s.labels.length === s.keys.length, { message: 'a label for each key' });

const recordSchema = z.object({
  // 2: segments carry labels (a version 1 record is no record: the snapshot is rebuilt).
  version: z.literal(2),
  /** The export state key whose file this is. */
  key: z.string(),
  /** Bytes of the file this record vouches for, and their SHA-256. */
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  lines: z.number().int().nonnegative(),
  contacts: z.number().int().nonnegative(),
  /** When the last full refresh started the file. */
  fullAt: z.string(),
  fields: z.array(segmentSchema),
});

/**
 * What a sync knows of its snapshot file beyond the export state: a SHA-256 of every committed
 * byte (the state checks only the last 64 KiB), and the field keys and labels in force when each
 * part of the file was fetched (the export keys a line's fields by the labels of then). Written whole (temp file, fsync, rename), mode 0600, beside the file.
 */
export type SnapshotRecord = z.infer<typeof recordSchema>;

/** The record beside a snapshot, or undefined when it is missing or does not parse (then the snapshot is not trusted). */
export function readSnapshotRecord(path: string): SnapshotRecord | undefined {
  return readWhole(path, recordSchema);
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

export function writeSnapshotRecord(path: string, record: SnapshotRecord): void {
  writeWhole(path, JSON.stringify(record), 'sync snapshot record');
}

/** Writes a file of the sync whole or not at all: a temp file beside it, fsync, rename; mode 0600. */
export function writeWhole(path: string, text: string, what: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    rmSync(temp, { force: true });
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw LocalFileError.from(err, what, path) ?? err;
  }
}
