import { createReadStream } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { csvRecords } from '../input/csv-parser.js';
import { MAX_REPORT_RECORD } from './resume.js';

/**
 * What an existing report says of its run: `skipped` rows (a run stopped by Ctrl-C, SIGTERM or a
 * transient failure marks every row it did not get an answer for), and whether its last record
 * was cut short (a kill in the middle of a write). Undefined for a finished run, for what is no
 * report of this version, and for what is not a regular file (a device or a FIFO is written into).
 */
async function unfinishedBy(path: string, signal: AbortSignal): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size === 0) return undefined;
  if (!(await endsWithNewline(path, info.size))) return 'its last row was cut short (the run was killed)';
  // A finished run's report (the common case, up to millions of rows) has no skipped cell: a
  // byte search says so without parsing its CSV (38 MB: 2.2 s of CPU parsed).
  if (!(await mentions(path, ',skipped,', signal))) return undefined;
  const input = createReadStream(path, { signal, encoding: 'utf8' });
  let status = -1;
  let skipped = 0;
  try {
    for await (const records of csvRecords(input, MAX_REPORT_RECORD)) {
      for (const { fields, error } of records) {
        if (error !== undefined) continue;
        if (status < 0) {
          status = fields.indexOf('status');
          if (status < 0 || !fields.includes('job')) return undefined;
        } else if (fields[status] === 'skipped') skipped++;
      }
    }
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    // What cannot be read is no report of a stopped run: opening it for writing says the rest.
    return undefined;
  } finally {
    input.destroy();
  }
  return skipped > 0
    ? `${skipped} ${skipped === 1 ? 'row' : 'rows'} "skipped" (the run was stopped before it sent them)`
    : undefined;
}

/** Whether the file holds `text` anywhere (also across the chunks it is read in). */
async function mentions(path: string, text: string, signal: AbortSignal): Promise<boolean> {
  const needle = Buffer.from(text);
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { signal }) as AsyncIterable<Buffer>) {
    const joined = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    if (joined.includes(needle)) return true;
    carry = joined.subarray(Math.max(0, joined.length - needle.length + 1));
  }
  return false;
}

async function endsWithNewline(path: string, size: number): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { buffer } = await file.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] === 10;
  } finally {
    await file.close();
  }
}

/**
 * Refuses to overwrite the report of an unfinished run (docs/batches.md, "Resuming"): what it
 * holds is what a resume needs. `--resume-from-report` or `--force` goes ahead.
 */
export async function refuseUnfinishedReport(path: string, signal: AbortSignal): Promise<void> {
  const why = await unfinishedBy(path, signal);
  if (why === undefined) return;
  const hint =
    `add --resume-from-report ${path} to send only the rows it does not mark done, ` +
    'or --force to overwrite it and send every row again';
  throw new UsageError(
    `--report ${path}: it holds an unfinished run (${why}); a new run would overwrite it`,
    hint,
    'report_unfinished',
  );
}
