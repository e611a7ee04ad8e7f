import type { EmailEventType } from '../endpoints/exports.js';
import type { CrashHook } from './crash-points.js';
import type { FileLayout, LabelledField } from './csv-layout.js';
import type { FieldChanges } from './field-binding.js';
import type { FieldKeys } from './fields-by-key.js';
import type { FileStart } from './file-sink.js';
import type { ExportTarget } from './kinds.js';
import type { ExportLock } from './lock.js';
import type { ExportStateStore } from './state-store.js';
import type { ExportState, FileFormat, Position } from './export-state.js';
import type { ExportKind } from '../endpoints/exports.js';

/** Everything an export run was asked for, validated. */
export interface ExportRunOptions {
  kind: ExportKind;
  emailType?: EmailEventType;
  /** Several email event types into one output (--type all or a list): see multi-type.ts. */
  emailTypes?: readonly EmailEventType[];
  since?: string;
  until?: string;
  /**
   * --since/--until given as a duration before now (`7d`): as typed. A cron line may carry one on
   * every run; a state that continues keeps its saved window rather than refuse a new one.
   */
  windowAsTyped?: { since?: string; until?: string; sinceAt?: string };
  /** Output file; undefined for stdout. */
  out?: string;
  format: FileFormat;
  /** gzip: every page written as its own gzip member (--out FILE.gz, --compress gzip). */
  compress?: 'gzip';
  limit: number;
  full: boolean;
  noState: boolean;
  stateKey?: string;
  maxPages?: number;
  maxRows?: number;
  deferCommit: boolean;
  columns?: string[];
  bom: boolean;
  /** --null-as: CSV text for null values (default: an empty cell). */
  nullAs?: string;
  /** CSV: neutralise values a spreadsheet would run as formulas. */
  excelSafe: boolean;
  /** Contacts: fields by key (--fields-by key: NDJSON members, CSV columns) instead of the API's labels; absent: as the state recorded, else label. */
  fieldsBy?: 'label' | 'key';
  /**
   * Contacts NDJSON with a state: record each field's label and say (a note, the summary's
   * fieldChanges) what changed since the last run. `export contacts` asks for it; the sync
   * snapshot does not (its rows are read by key).
   */
  watchFields?: boolean;
  /**
   * Contacts: the CONTACT fields as the caller read them (contacts sync, for its snapshot): the
   * run reads its pages under them without reading them first, and again after each page.
   */
  fields?: readonly LabelledField[];
  /** --run: the run's id (else a random one). */
  runId?: string;
  /** --summary-json: where the run summary goes as JSON (a file, or - when rows go to a file). */
  summaryJson?: string;
  /** Test-only kill points of the commit protocol (CNV_TEST_CRASH_AT); none when absent. */
  crash?: CrashHook;
}

/** Where a run starts and how it writes, once options and the saved state are reconciled. */
export interface RunPlan {
  key: string | null;
  profile: string;
  baseUrl: string;
  /** The account (src/config/account-identity.ts), recorded in the state. */
  account: string;
  store?: ExportStateStore;
  lock?: ExportLock;
  prior?: ExportState;
  start: Position;
  target: ExportTarget;
  path?: string;
  fileStart?: FileStart;
  layout: FileLayout | null;
  /** Contacts: how the account's fields changed since the CSV file's header was bound, or the last NDJSON run (said in a note and the summary). */
  fieldChanges?: FieldChanges;
  /** --fields-by key: how `fields` members become keys (read from the definitions when the run starts). */
  fieldKeys?: FieldKeys;
  /** Contacts: the field list the run starts under (read again after each page: field-watch.ts); absent when none was read. */
  fields?: readonly LabelledField[];
  /** --full over an existing state: its first page is saved even when empty (a new start, a new window). */
  restarted: boolean;
  /** What the state names as its email type: one type, `all`, or a comma list. */
  emailLabel?: string;
}
