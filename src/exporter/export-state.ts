import { z } from 'zod';
import { EXPORT_KINDS } from '../endpoints/exports.js';

export type FileFormat = 'csv' | 'ndjson';

/** How many run manifests a state keeps (the latest last). */
export const MANIFESTS_KEPT = 20;

const manifestSchema = z.object({
  runId: z.string(),
  startedAt: z.string(),
  /** Set when the run ended; a manifest still "running" without it belongs to a killed run. */
  finishedAt: z.string().nullable(),
  status: z.enum(['running', 'complete', 'stopped', 'failed', 'interrupted', 'pending', 'committed', 'superseded']),
  /** Rows, pages and bytes this run delivered and committed (or made pending). */
  rows: z.number(),
  pages: z.number(),
  bytes: z.number(),
  /** SHA-256 (hex) of exactly those bytes: for a file, bytes [startOffset, startOffset + bytes). */
  sha256: z.string(),
  firstCursor: z.string().nullable(),
  lastCursor: z.string().nullable(),
  output: z.string(),
  startOffset: z.number().nullable(),
  moreRemains: z.boolean(),
  error: z.string().optional(),
  /**
   * Contacts: how the account's fields changed since the file's header was bound, or (NDJSON)
   * since the last run (src/exporter/field-binding.ts).
   */
  fieldChanges: z
    .object({
      relabelled: z.array(
        z.object({ key: z.string(), column: z.string().optional(), from: z.string(), to: z.string() }),
      ),
      added: z.array(z.object({ key: z.string(), label: z.string() })),
      removed: z.array(z.object({ key: z.string(), column: z.string().optional() })),
    })
    .optional(),
  /** CSV: the values this run wrote to `_extra`, in how many rows, under which names (the first 20). */
  extra: z.object({ values: z.number(), rows: z.number(), members: z.array(z.string()) }).optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;

const outputSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('file'),
    path: z.string(),
    bytes: z.number(),
    /** `<dev>:<ino>` of the file, and the SHA-256 of its last 64 KiB before `bytes`: a replaced or rewritten file is refused. */
    file: z.string(),
    tail: z.string(),
  }),
  z.object({ kind: z.literal('stdout') }),
]);

/** Where one email event type of a multi-type export stands (its own cursor). */
export const laneSchema = z.object({
  cursor: z.string().nullable(),
  cursorAt: z.string().nullable(),
  seen: z.array(z.string()),
  rows: z.number(),
  pages: z.number(),
});
export type LanePosition = z.infer<typeof laneSchema>;

/** Where an export stands: everything needed to continue with no row lost or repeated. */
const positionSchema = z.object({
  /** The last non-null cursor; null until the first one (a run then starts from the beginning). */
  cursor: z.string().nullable(),
  cursorAt: z.string().nullable(),
  /** Identities of the rows delivered after `cursor`: the next run fetches them again and skips them. */
  seen: z.array(z.string()),
  output: outputSchema,
  format: z.enum(['csv', 'ndjson']),
  /** gzip: each page is one gzip member (absent: plain bytes). */
  compress: z.literal('gzip').optional(),
  /**
   * Contacts written with fields by key (--fields-by key): NDJSON `fields` keyed by field key, a CSV
   * header with a column per field key. Absent: by label, as the API sends them. A later run
   * without --fields-by follows it.
   */
  fieldsBy: z.literal('key').optional(),
  /**
   * Contacts NDJSON: each field's label (by key) when the last run started, so a field relabelled,
   * added or deleted since is said (the summary's fieldChanges). Absent in states of a cnv before it.
   */
  fieldLabels: z.record(z.string(), z.string()).optional(),
  /** The CSV header in force (and what --columns left out on purpose), stable across runs. */
  csv: z
    .object({
      columns: z.array(z.string()),
      omitted: z.array(z.string()),
      /** Contacts: the row member a column holds where it is not its label (fields sharing a label); absent when none. */
      rowKeys: z.record(z.string(), z.string()).optional(),
      /**
       * Contacts: the field key each field column holds, bound when the header was made (a
       * relabelled field keeps its column).
       */
      fieldKeys: z.record(z.string(), z.string()).optional(),
      /** The cell rules the file was written with (--null-as, --excel-safe): a file keeps one way of writing cells. */
      nullAs: z.string(),
      excelSafe: z.boolean(),
    })
    .nullable(),
  /** Custom events: the occurredAt window of the first call (the cursor carries it after). */
  window: z.object({ since: z.string(), until: z.string().optional() }).nullable(),
  /** Totals since the state began. */
  rows: z.number(),
  pages: z.number(),
  /**
   * When this position began from nothing (the first run, or --full): the last full read.
   * Absent in states of a cnv before it.
   */
  fullAt: z.string().optional(),
  /**
   * Several email event types into one output (--type all or a list): each type's cursor, saved
   * in the same atomic write as the file's length; the top-level cursor and `seen` stay unused.
   */
  lanes: z.record(z.string(), laneSchema).optional(),
  /**
   * A reader's seal over the file (contacts sync's snapshot, src/sync/snapshot-seal.ts): a SHA-256
   * of the committed bytes and of `of`, what the reader keeps of them. Committed in the same state
   * write as the position it is of, so neither is ever saved without the other.
   */
  seal: z.object({ sha256: z.string(), of: z.unknown() }).optional(),
});
export type Position = z.infer<typeof positionSchema>;
export type Seal = NonNullable<Position['seal']>;

export const stateSchema = z.object({
  version: z.literal(1),
  key: z.string(),
  kind: z.enum(EXPORT_KINDS),
  emailType: z.string().optional(),
  profile: z.string(),
  baseUrl: z.string(),
  /** The account (base URL and the key's identity: src/config/account-identity.ts). */
  account: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  current: positionSchema,
  /** Written by --defer-commit runs; `cnv export state commit KEY` makes it current. */
  pending: positionSchema.extend({ runId: z.string(), savedAt: z.string() }).optional(),
  runs: z.array(manifestSchema),
});
export type ExportState = z.infer<typeof stateSchema>;

/** Adds or replaces a run's manifest, keeping the latest MANIFESTS_KEPT. */
export function withManifest(runs: Manifest[], manifest: Manifest): Manifest[] {
  const others = runs.filter((m) => m.runId !== manifest.runId);
  return [...others, manifest].slice(-MANIFESTS_KEPT);
}
