import { payloadHash } from '../batch/file-run.js';
import { InvalidRowError } from '../batch/row-body.js';
import { SUCCESS_STATUSES, type BatchSender, type ItemOutcome } from '../batch/types.js';
import type { Clock } from '../clock.js';
import type { UpsertContactBody } from '../endpoints/contacts.js';
import { quoteInput, type InputRow } from '../input/input-rows.js';
import { keyColumnReader } from '../ledger/key-column.js';
import { Ledger, type LedgerDeps } from '../ledger/ledger.js';
import type { LedgerRecord } from '../ledger/ledger-file.js';
import type { LedgerJob } from '../ledger/ledger-job.js';
import { endLedgerRun } from '../ledger/ledger-run.js';
import type { Decision } from './decide.js';

/** What a run does without the keys' contacts (a ledger lost or damaged), for the note that says so. */
const WITHOUT = [
  'no key has a contact this run: each row is matched by its email',
  '(a row whose email changed creates a contact), and the keys are recorded anew',
].join(' ');

/** The records of rows the snapshot finds unchanged are appended this many at a time. */
const FLUSH_AT = 1024;

/** A row's key, and whether its cnvContactId is the one the ledger recorded for it. */
interface Tag {
  key: string;
  fromLedger: boolean;
}

/** What the keys did in a run: the summary's `ledger` member, and the run's counts in the ledger. */
interface KeyCounts {
  /** Rows given the contact the ledger recorded for their key. */
  matched: number;
  /** Of those, rows whose email differs from the contact's: the same contact gets the new address. */
  newEmail: number;
  /** Keys whose contact was recorded this run (a key new to the ledger, or another contact). */
  recorded: number;
  /** Keys whose recorded contact is gone from the account: matched by their email, the entry replaced or forgotten. */
  gone: number;
}

/**
 * contacts sync --key-column COL (docs/sync.md, "A key column"): the ledger of the job
 * `<account>/contacts-sync/<COL>` maps each key (a row's value in COL) to the contact the API
 * answered for it. A row that names no cnvContactId is given its key's contact before it is
 * decided against the snapshot, so a person whose email changed updates the same contact
 * (cnvContactId and the new email: the upsert's rule) instead of creating a second one. Without
 * the ledger (lost, damaged) rows are matched by email, as without the flag: never a wrong contact.
 */
export class ContactKeys {
  readonly counts: KeyCounts = { matched: 0, newEmail: 0, recorded: 0, gone: 0 };
  /** The file's keys so far, with the line of each one's row: a key met again is refused. */
  private readonly lines = new Map<string, number>();
  private readonly tags = new WeakMap<object, Tag>();
  /** The contacts given to a key this run, with its line: two keys never share one (it would flap between them). */
  private readonly given = new Map<string, number>();
  /** Records of unchanged rows not yet appended (harmless to lose: the next run finds them again). */
  private pending: LedgerRecord[] = [];
  private readonly readKey: (row: InputRow) => string;

  private constructor(
    readonly ledger: Ledger,
    /** The run sends: outcomes are recorded (not with --plan or --dry-run, which read the ledger only). */
    private readonly sending: boolean,
  ) {
    this.readKey = keyColumnReader('--key-column', ledger.job.keyColumn);
  }

  /** Opens the job's ledger: locked and written when the run sends, only read otherwise. */
  static async open(deps: LedgerDeps, job: LedgerJob, sending: boolean): Promise<ContactKeys> {
    return new ContactKeys(await Ledger.open(deps, job, sending, WITHOUT), sending);
  }

  /**
   * A valid row before it is decided: its key read (blank, or met on an earlier row: an
   * InvalidRowError), and the contact the ledger recorded for the key added as cnvContactId when
   * the row names none and the snapshot holds that contact. One the snapshot does not hold (deleted
   * in the account) is never written to: the row is matched by its email.
   */
  keyed(
    row: InputRow,
    body: UpsertContactBody,
    holds: (id: string) => boolean,
  ): { body: UpsertContactBody; note?: string } {
    const key = this.readKey(row);
    const column = this.ledger.job.keyColumn;
    const first = this.lines.get(key);
    if (first !== undefined)
      throw new InvalidRowError(
        `--key-column ${quoteInput(column)}: ${quoteInput(key)} is the key of line ${first} too; ` +
          'a key names one contact, so only its first row is synced',
        'duplicate_key',
      );
    this.lines.set(key, row.line);
    const id = body.cnvContactId === undefined ? this.ledger.entries.get(key)?.id : undefined;
    const named = `${column} ${quoteInput(key)}`;
    const sharedWith = id === undefined ? undefined : this.given.get(id);
    if (id !== undefined && sharedWith === undefined && holds(id)) {
      this.counts.matched++;
      this.given.set(id, row.line);
      const keyed: UpsertContactBody = { cnvContactId: id, ...body };
      this.tags.set(keyed, { key, fromLedger: true });
      return { body: keyed };
    }
    this.tags.set(body, { key, fromLedger: false });
    if (id === undefined) return { body };
    if (sharedWith !== undefined)
      return {
        body,
        note: `the contact recorded for ${named} is line ${sharedWith}'s (another key): matched by email`,
      };
    this.counts.gone++;
    return { body, note: `the contact recorded for ${named} (${id}) is not in the account: matched by email` };
  }

  /**
   * A decided row: one the snapshot finds unchanged records the contact it matched when the
   * ledger has none for its key, or another. Returns the report's note of a new email given to
   * the key's contact.
   */
  decided(body: UpsertContactBody, decision: Decision): string | undefined {
    const tag = this.tags.get(body);
    if (!tag) return undefined;
    const id = decision.cnvContactId;
    if (
      this.sending &&
      decision.action === 'unchanged' &&
      id !== undefined &&
      this.ledger.entries.get(tag.key)?.id !== id
    ) {
      this.counts.recorded++;
      this.pending.push(['put', tag.key, payloadHash(body), 'ok', id, null]);
      // A failed append fails the journal: the next one (a sent row's, the run's end) throws it.
      if (this.pending.length >= FLUSH_AT) this.flush().catch(() => {});
    }
    if (!tag.fromLedger || !decision.changes.some((c) => c.field === 'email')) return undefined;
    this.counts.newEmail++;
    return `a new email for the contact of ${this.ledger.job.keyColumn} ${quoteInput(tag.key)} (--key-column)`;
  }

  /** The upsert's sender, each answer recorded under its row's key (on disk) before its result is reported. */
  recording<B>(send: BatchSender<B>): BatchSender<B> {
    if (!this.sending) return send;
    return async (items, signal) => {
      const outcomes = await send(items, signal);
      const records: LedgerRecord[] = [];
      const recorded = outcomes.map((outcome, i) => {
        const tag = this.tags.get(items[i].payload as object);
        return tag ? this.answer(tag, items[i].payload as UpsertContactBody, outcome, records) : outcome;
      });
      await this.flush(records);
      return recorded;
    };
  }

  /**
   * The run's end: what is pending appended, the run recorded, the ledger compacted and released
   * (`failure`: the run stopped with it).
   */
  async end(
    run: { started: number; failure?: unknown; exitCode?: number },
    deps: { signal: AbortSignal; clock: Clock },
  ): Promise<void> {
    try {
      await this.flush();
    } finally {
      await endLedgerRun(this.ledger, { ...run, counts: { ...this.counts } }, deps);
    }
  }

  /** The summary's `ledger` member. */
  data(): Record<string, unknown> {
    return { job: this.ledger.job.key, trusted: this.ledger.trusted, ...this.counts };
  }

  /** The summary's line for the keys. */
  line(): string {
    const { matched, newEmail, recorded, gone } = this.counts;
    // As the other ledgers' line (`ledger: 30 added, ...`): plain digits, grepped by scripts.
    const lost = gone > 0 ? `, ${gone} gone from the account (matched by email)` : '';
    const job = this.ledger.job.key;
    return `ledger: ${matched} matched by key (${newEmail} with a new email), ${recorded} recorded${lost} (job ${job})`;
  }

  /** What the ledger records of a sent row's answer: its contact; or it forgets a contact of its own the API no longer has. */
  private answer(tag: Tag, body: UpsertContactBody, outcome: ItemOutcome, records: LedgerRecord[]): ItemOutcome {
    const before = this.ledger.entries.get(tag.key)?.id;
    if (SUCCESS_STATUSES.has(outcome.status) && outcome.id !== undefined) {
      if (before !== outcome.id) this.counts.recorded++;
      records.push(['put', tag.key, payloadHash(body), 'ok', outcome.id, null]);
      return outcome;
    }
    if (!tag.fromLedger || outcome.status !== 'failed' || outcome.error !== 'contact_not_found') return outcome;
    // Deleted in the account since the snapshot last saw it: the next run matches the row by its email.
    this.counts.gone++;
    records.push(['del', tag.key]);
    const forgotten = 'the ledger forgets the contact of this key: the next run matches the row by its email';
    return { ...outcome, message: outcome.message ? `${outcome.message}; ${forgotten}` : forgotten };
  }

  private flush(more: LedgerRecord[] = []): Promise<void> {
    const records = this.pending.length > 0 ? [...this.pending, ...more] : more;
    this.pending = [];
    return this.ledger.record(records);
  }
}
