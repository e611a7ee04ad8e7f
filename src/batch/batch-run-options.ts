import type { InputFormat } from '../input/input-rows.js';
import type { Convention } from '../input/number-convention.js';
import type { ColumnFlagValues } from './columns/column-flags.js';

/**
 * What a file run does with its valid rows: `send` them; or send none and, for `dry-run` (the
 * global --dry-run), print each request it would send on stdout; for `plan` (`contacts sync
 * --plan`) and `check` (`records upsert --check`), print nothing of them (the command prints its
 * plan or its report).
 */
export type RunMode = 'send' | 'dry-run' | 'plan' | 'check';

/** Options of every batch or file mode, as `runFileBatch` takes them. */
export interface BatchRunOptions {
  inputFormat?: InputFormat;
  delimiter?: string;
  /** --encoding: how to read an input file without a byte order mark (default UTF-8). */
  encoding?: string;
  report?: string;
  resumeFromReport?: string;
  /** --force: overwrite the --report of an unfinished run. */
  force?: boolean;
  concurrency: number;
  chunkSize: number;
  /** Send the rows, or only check and report them (RunMode). */
  mode: RunMode;
  /** --summary-json: where the run summary goes as JSON (a file, or - for stdout). */
  summaryJson?: string;
  /** --max-rows: read (and send, or show with --dry-run) only the first N rows. */
  maxRows?: number;
  /** --map, --map-file, --ignore-column, --ignore-unknown-columns, --pass-column, as given. */
  columns: ColumnFlagValues;
  /**
   * --decimal-point or --decimal-comma: the file's number convention (else the file's own cells
   * tell it, src/input/number-convention.ts).
   */
  numbers?: Convention;
}

export interface BatchDefaults {
  /** Default --concurrency (requests in flight). */
  concurrency: number;
  /** The endpoint's item limit; adds --chunk-size when above 1. */
  maxChunkSize: number;
  /** Which column flags apply (default `body`). */
  columns?: 'body' | 'records' | 'identifiers';
  /** Whether the file's NUMBER cells are typed by field definitions (adds --decimal-point and --decimal-comma). */
  typedNumbers?: boolean;
}
