import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import { CliError } from '../errors.js';
import type { CrashHook } from '../exporter/crash-points.js';
import type { ExportReporter } from '../exporter/run-summary.js';
import { runExport } from '../exporter/runner.js';
import type { ExportRunOptions } from '../exporter/export-run-options.js';
import type { ExportDeps } from '../exporter/export-deps.js';

/** What a refresh takes: the export's deps, and how to show its pages. */
export interface SnapshotDeps extends ExportDeps {
  reporter: ExportReporter;
}

/** Errors of the export's file checks that mean the snapshot file is not the one its state wrote. */
const DAMAGE_CODES = new Set([
  'file_replaced',
  'file_changed',
  'file_shorter_than_committed',
  'file_not_empty',
  'state_corrupt',
]);

/**
 * Runs the export into the snapshot once: what it fetched, or, for a continuing run whose file
 * the export's own checks refuse (not the file its state wrote) or whose saved cursor the server
 * refuses (`invalid_cursor`: a server restarted or reset), why it must run again whole (the
 * snapshot is a cache). A full run's errors are thrown.
 */
export async function exportSnapshot(
  deps: SnapshotDeps,
  key: string,
  file: string,
  full: boolean,
  crash: CrashHook | undefined,
): Promise<{ rows: number; pages: number } | { again: string }> {
  try {
    return await exportInto(deps, key, file, full, crash);
  } catch (err) {
    if (full || !(err instanceof CliError) || !(DAMAGE_CODES.has(err.code) || err.code === 'invalid_cursor')) throw err;
    return {
      again:
        err.code === 'invalid_cursor'
          ? `the server refused the snapshot's saved cursor (invalid_cursor: restarted, reset, or the cursor expired)`
          : `the snapshot ${file} is not the file its state wrote (${err.code})`,
    };
  }
}

async function exportInto(
  deps: SnapshotDeps,
  key: string,
  file: string,
  full: boolean,
  crash: CrashHook | undefined,
): Promise<{ rows: number; pages: number }> {
  const options: ExportRunOptions = {
    kind: 'contacts',
    out: file,
    format: 'ndjson',
    limit: EXPORT_PAGE_LIMITS.contacts.max,
    full,
    noState: false,
    stateKey: key,
    deferCommit: false,
    bom: false,
    excelSafe: false,
    crash,
  };
  try {
    const summary = await runExport(deps, options, deps.reporter);
    return { rows: summary.rows, pages: summary.pages };
  } catch (err) {
    throw syncHint(err, key);
  }
}

/**
 * An export error as `contacts sync` says it: the export's hints name the export's flags
 * (`--full`, `--out`, `--state-key`), which sync does not have; the snapshot is a cache, so the
 * way on is always to rebuild it.
 */
function syncHint(err: unknown, key: string): unknown {
  if (!(err instanceof CliError) || !err.hint || !/(^|[^\w-])--(?!full-refresh\b)[a-z]/.test(err.hint)) return err;
  // The same error (its class, code and exit code), with sync's way on.
  (err as { hint?: string }).hint =
    `the snapshot is a cache of the account: run again with --full-refresh to rebuild it (or \`cnv export state reset ${key} --yes\`)`;
  return err;
}
