import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors.js';

/** Bytes before the committed length whose SHA-256 the state keeps, to recognise the file. */
export const TAIL_BYTES = 64 * 1024;

/** How the state recognises its file: device and inode, and a hash of the committed tail. */
export interface FileIdentity {
  /** `<dev>:<ino>` of the file when it was committed to. */
  file: string;
  /** SHA-256 (hex) of the last min(length, TAIL_BYTES) bytes before the committed length. */
  tail: string;
}

export const fileIdOf = (st: BigIntStats): string => `${st.dev}:${st.ino}`;

/** The hash of a tail (the empty tail of an empty file included). */
export const tailHash = (tail: Buffer): string => createHash('sha256').update(tail).digest('hex');

/** The last TAIL_BYTES of `tail` followed by `pieces`, without copying whole pages. */
export function nextTail(tail: Buffer, pieces: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  let need = TAIL_BYTES;
  for (let i = pieces.length - 1; i >= 0 && need > 0; i--) {
    const p = pieces[i];
    const take = p.subarray(Math.max(0, p.length - need));
    parts.unshift(take);
    need -= take.length;
  }
  if (need > 0) parts.unshift(tail.subarray(Math.max(0, tail.length - need)));
  return Buffer.concat(parts);
}

/** Reads the committed tail of an open file: the bytes just before `committed`. */
export async function readTail(fh: FileHandle, committed: number): Promise<Buffer> {
  const from = Math.max(0, committed - TAIL_BYTES);
  const buf = Buffer.alloc(committed - from);
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, from + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

const SAME_FILE_HINT =
  'put the file this export wrote back at this path; ' +
  'or run with --full to export everything into this file afresh; ' +
  'or give another --out to continue from the saved cursor into a new file';

/**
 * Refuses (exit 2) a file that is not the one the state committed to: another device or inode
 * (moved away and replaced, a rotated log, a re-pointed symlink), or other bytes before the
 * committed length (rewritten in place, by hand or by another export).
 */
export function checkIdentity(
  path: string,
  recorded: Partial<FileIdentity>,
  found: { file: string; tail: Buffer },
  committed: number,
): void {
  if (recorded.file !== undefined && recorded.file !== found.file) {
    throw new UsageError(
      `--out ${path} is not the file this export state committed ${committed} bytes to ` +
        `(device:inode was ${recorded.file}, now ${found.file}: ` +
        'moved, rotated, replaced or a re-pointed symlink); nothing was written or cut',
      SAME_FILE_HINT,
      'file_replaced',
    );
  }
  if (recorded.tail !== undefined && recorded.tail !== tailHash(found.tail)) {
    throw new UsageError(
      `--out ${path}: the ${found.tail.length} bytes before the committed length (${committed}) ` +
        'are not the ones this export state wrote (edited, or rewritten by another export); ' +
        'nothing was written or cut',
      SAME_FILE_HINT,
      'file_changed',
    );
  }
}
