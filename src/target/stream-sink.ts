import type { ColumnFlagValues } from '../batch/columns/column-flags.js';
import type { FileColumnsSpec } from '../batch/columns/file-columns.js';
import type { RunMode } from '../batch/batch-run-options.js';
import type { ColumnResolver } from '../batch/columns/column-resolver.js';
import type { FileRowsSpec } from '../batch/file-run.js';
import type { InputRow } from '../input/input-rows.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerRecord } from '../ledger/ledger-file.js';
import type { RemovalOptions } from '../ledger/removals.js';
import type { StreamConfig } from './target-config.js';

/** A stream as its SCHEMA gives it, and what the target run offers the kind that feeds it. */
export interface StreamSchema {
  stream: string;
  /** The SCHEMA's properties, in its order: the columns, resolved before any record is sent. */
  properties: readonly string[];
  /** The properties keying a record across runs (the config's key_properties, else the SCHEMA's). */
  keyProperties: readonly string[];
  /** A record's key from keyProperties (undefined without them); an InvalidRowError when one is missing. */
  keyOf(row: InputRow): string | undefined;
  config: StreamConfig;
  mode: RunMode;
  /** plan: each change decided goes to the report (old -> new, adds, removals). */
  change?(line: Record<string, unknown>): void;
}

/**
 * What a stream's records are sent as: the engine of the command of its kind (contacts sync,
 * events track --id-column, audience/campaigns sync, records sync), its rows decided against the
 * job's ledger, made by the command layer (src/commands/target) for each SCHEMA.
 */
export interface StreamSink<P extends object> {
  /** contacts, events, audience, campaign, records. */
  kind: string;
  /** What it writes, for messages: `POST /v2/contacts`. */
  endpoint: string;
  columns: FileColumnsSpec;
  columnFlags: ColumnFlagValues;
  /** prepare (decided against the ledger or the account), send (outcomes recorded), orderKey. */
  rows: FileRowsSpec<P>;
  chunkSize: number;
  concurrency: number;
  /** The job's ledger (opened for this run, locked when it sends): the stream's memory is kept in it too. */
  ledger: Ledger;
  /**
   * A record's key (its key properties, else what the kind keys a row by: a membership's identifier),
   * the one its ledger entries have; undefined when it has none. Read from the row alone (a record
   * marked deleted is keyed, not prepared); an InvalidRowError when a key property is missing.
   */
  key(row: InputRow, columns: ColumnResolver): string | undefined;
  /** audience: how a member is removed (a complete pass, a record marked deleted). */
  removals?: Omit<RemovalOptions, 'ledger' | 'tally' | 'notices' | 'sending' | 'onRemoval' | 'maxRemovals'>;
  /** audience: --max-removals. */
  maxRemovals?: number;
  /** What the kind learnt without a request (a contact a key names, found unchanged), for the ledger's next durable write. */
  drain?(): LedgerRecord[];
  /** The kind's own end (a plan's last lines), after the ledger's. */
  close?(): Promise<void>;
}
