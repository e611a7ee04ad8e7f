import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { parseExact } from '../../scripts/interop/compare.mjs';

// The test target (singer-target.mjs) from the side of a test: how to run it, what it stored,
// what it says it received.

/** The target's script: run as `node TARGET_SCRIPT --config FILE`, the config `{ destination }`. */
export const TARGET_SCRIPT = resolve(import.meta.dirname, 'singer-target.mjs');

/** A stored row: the record (a number a double cannot hold as lossless-json's LosslessNumber) and the version that wrote it. */
export interface StoredRow {
  version?: number;
  record: Record<string, unknown>;
}

/** The rows the target holds for `stream` (none when it has no file). */
export function storedRows(destination: string, stream: string): StoredRow[] {
  const file = join(destination, `${encodeURIComponent(stream)}.ndjson`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const row = parseExact(line) as { version?: unknown; record: Record<string, unknown> };
      return { version: row.version === undefined ? undefined : Number(row.version), record: row.record };
    });
}

/** The streams the target holds a file for. */
export function storedStreams(destination: string): string[] {
  if (!existsSync(destination)) return [];
  return readdirSync(destination)
    .filter((f) => f.endsWith('.ndjson'))
    .map((f) => decodeURIComponent(f.slice(0, -'.ndjson'.length)))
    .sort();
}

/** What the target says it received in a run (its last stderr line); undefined when it did not end normally. */
export function targetCounts(
  stderr: string,
): { records: Record<string, number>; activated: Record<string, number>; states: number } | undefined {
  const line = stderr
    .split('\n')
    .filter((l) => l.startsWith('singer-target: {'))
    .at(-1);
  return line ? JSON.parse(line.slice('singer-target: '.length)) : undefined;
}
