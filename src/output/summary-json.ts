import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { LocalFileError, UsageError } from '../errors.js';
import { isStreamTarget } from '../files/file-streams.js';

/**
 * The --summary-json target, checked: `-` (stdout) only when the run prints no data there,
 * so stdout never mixes rows and a summary; never one of the run's other files (`others`,
 * by flag).
 */
export function summaryJsonTarget(
  value: unknown,
  stdoutCarriesData: boolean,
  others: Record<string, unknown> = {},
): string | undefined {
  if (value === undefined) return undefined;
  const path = String(value);
  if (path.trim() === '') throw new UsageError('--summary-json: expected a file name, or - for stdout');
  // Renamed over its target: naming the output, the report or the input would replace that file.
  for (const [flag, other] of Object.entries(others)) {
    if (typeof other === 'string' && other !== '-' && path !== '-' && resolve(other) === resolve(path)) {
      throw new UsageError(`--summary-json: must not be the same file as ${flag}`);
    }
  }
  if (path === '-' && stdoutCarriesData) {
    throw new UsageError(
      "--summary-json -: stdout already carries this run's data",
      'give a file name, or send the data to a file (--out / --report FILE)',
      'conflicting_options',
    );
  }
  // Checked before the run, so a typo in the directory does not surface only after the work is done.
  const dir = dirname(path);
  if (path !== '-' && !isDirectory(dir)) throw new UsageError(`--summary-json: the directory ${dir} does not exist`);
  // A directory (or a link to one) there was exit 1 "internal: EISDIR" once the rows were sent.
  if (path !== '-' && isDirectory(path))
    throw new UsageError(
      `--summary-json ${path}: is a directory, not a file`,
      'give a file name (e.g. summary.json in it), or - for stdout',
      'summary_unwritable',
    );
  if (path !== '-' && !isStreamTarget(path) && !writable(dir))
    throw new UsageError(
      `--summary-json ${path}: the directory ${dir} cannot be written to`,
      'give a file in a directory you may write to, or - for stdout',
      'summary_unwritable',
    );
  return path;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Writes the summary: to stdout for `-`, else to a temporary file in the same directory renamed
 * over `path`, so a reader never sees half a summary (a crash leaves the previous one or none).
 */
export function writeSummaryJson(
  to: { stdout: Writable; redact(text: string): string },
  path: string,
  summary: Record<string, unknown>,
): void {
  const text = to.redact(JSON.stringify(summary, null, 2)) + '\n';
  if (path === '-') {
    to.stdout.write(text);
    return;
  }
  if (isStreamTarget(path)) {
    writeToStream(path, text);
    return;
  }
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    // O_EXCL: never through a file or a link someone placed under the temporary name.
    const fd = openSync(tmp, 'wx', 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw LocalFileError.from(err, 'summary file', path) ?? err;
  }
}

/** A summary to a device, a FIFO or a pipe (`/dev/stderr`, `>(jq ...)`): written into it, never replaced. */
function writeToStream(path: string, text: string): void {
  let fd: number | undefined;
  try {
    // Non-blocking: a FIFO nobody reads is an error (ENXIO), not a wait no signal can end.
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
    writeSync(fd, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO')
      throw new UsageError(
        `--summary-json ${path}: nothing reads this FIFO`,
        'start its reader first, or give a file name',
        'summary_unwritable',
      );
    throw LocalFileError.from(err, 'summary file', path) ?? err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
