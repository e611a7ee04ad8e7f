/**
 * The status of one input row in a batch or file run (the report's `status` column):
 * - added: the contact is a member of the audience or campaign (new or already);
 * - created / updated: the upsert created or updated the record;
 * - tracked / duplicate: the event was recorded, or was there already (same clientEventId);
 * - unchanged: contacts sync: the account holds what the row says already; a ledger job
 *   (docs/ledger.md): it sent these values already; not sent;
 * - removed: audience sync: a member the job added earlier, no longer in the file, removed;
 * - held: audience sync: a removal held back by --max-removals (not sent);
 * - valid: --dry-run only: the row passed local validation and would be sent;
 * - failed: the API refused this row (the error column holds its code);
 * - invalid: local validation refused the row; it was never sent;
 * - skipped: not sent, or sent without a confirmed answer, because the run stopped
 *   (retries exhausted, interrupted, or a fatal error); --resume-from-report sends it again.
 */
export type RowStatus = keyof typeof DONE;

/** Every status, in the order a summary lists them, and whether it means "done". */
const DONE = {
  added: true,
  created: true,
  updated: true,
  unchanged: true,
  tracked: true,
  duplicate: true,
  removed: true,
  valid: false,
  failed: false,
  invalid: false,
  held: false,
  skipped: false,
} as const;

/** The statuses, in the order a summary lists them. */
export const ROW_STATUSES = Object.keys(DONE) as RowStatus[];

/** Statuses that mean "done": --resume-from-report does not send these rows again. */
export const SUCCESS_STATUSES: ReadonlySet<string> = new Set(ROW_STATUSES.filter((s) => DONE[s]));

/** What happened to one item. */
export interface ItemOutcome {
  status: RowStatus;
  /** Service id of what the row touched (cnvContactId, record id...). */
  id?: string;
  /** Error code (API code, local validation code, or why it was skipped). */
  error?: string;
  message?: string;
  /** Carried over from --resume-from-report: already in the report file, not sent again. */
  earlier?: boolean;
  /**
   * A failure that is the API's refusal of what this row holds (a 400-class answer about the row
   * alone), not of the request: a ledger sends the row again only once its values change.
   */
  refusal?: boolean;
}

/**
 * Codes of a per-item failure that the row's values may not be the cause of: a contact that does
 * not exist yet (it may by the next run), an upsert or the server failing. Any other per-item
 * code is a refusal of what the row holds (`ItemOutcome.refusal`).
 */
const NOT_REFUSALS: ReadonlySet<string> = new Set([
  'contact_not_found',
  'upsert_failed',
  'internal_error',
  'no_result',
]);

/** Whether a per-item failure with this API code is a refusal of what the row holds. */
export function isRefusal(code: string | undefined): boolean {
  return code !== undefined && !NOT_REFUSALS.has(code);
}

/** What names one input row in its result and in the report. */
interface RowTag {
  line: number;
  /** The row's identifier as the user gave it (email, cnvContactId, userId, clientDedupKey...). */
  identifier: string;
  /** 1-based place of the row among the input's rows (a JSON array on one line has one line, many rows). */
  row?: number;
  /** A digest of what the row sends (docs/batches.md, "Resuming"): a resume skips the row only when it is unchanged. */
  hash?: string;
  /** Said in the row's report message when its outcome has none (`identified by email: ...`). */
  note?: string;
}

/** One row's result: its tag plus the outcome. */
export interface RowResult extends ItemOutcome, RowTag {}

/** A valid row, ready for a sender. */
export interface BatchItem<P> extends RowTag {
  payload: P;
}

/**
 * A row whose outcome is known without a request: invalid, decided (a sync's `unchanged`), or done
 * in an earlier run (resume.ts).
 */
export type KnownRow = RowTag & { payload?: undefined; outcome: ItemOutcome };

/** A row after validation: with a payload to send, or with its outcome already known. */
export type PreparedRow<P> = (BatchItem<P> & { outcome?: undefined }) | KnownRow;

/**
 * A row's result: its tag and the outcome, the tag's note the message when the outcome has none (a
 * literal, not spreads: it runs once a row).
 */
export function resultOf(tag: RowTag, outcome: ItemOutcome): RowResult {
  const message = outcome.message ?? tag.note;
  return {
    line: tag.line,
    identifier: tag.identifier,
    row: tag.row,
    hash: tag.hash,
    status: outcome.status,
    id: outcome.id,
    error: outcome.error,
    message,
    earlier: outcome.earlier,
  };
}

/**
 * Sends one chunk and returns one outcome per item, in order. Per-item failures (a 200 answer
 * with an item error, or a 4xx that concerns that row only) are outcomes, not exceptions.
 * Throw only when the run must stop: transient failure after retries, auth, missing target,
 * interruption. The runner then marks the chunk `skipped` and sends nothing more.
 */
export type BatchSender<P> = (items: BatchItem<P>[], signal: AbortSignal) => Promise<ItemOutcome[]>;
