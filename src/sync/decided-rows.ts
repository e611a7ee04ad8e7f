import type { FieldDefinition } from '../endpoints/fields.js';
import type { FileBatchSpec, FileRowsSpec, Prepared } from '../batch/file-run.js';
import { InvalidRowError } from '../batch/row-body.js';
import { ExitCode } from '../errors.js';
import type { InputRow } from '../input/input-rows.js';
import type { ContactKeys } from './contact-keys.js';
import { SyncDecider } from './decide.js';
import type { PlanOutput } from './plan-output.js';
import type { Snapshot } from './snapshot.js';
import { SyncCounts } from './sync-counts.js';

/** What the decide phase reads beyond the snapshot: the file run's own rows, --plan, --exit-code. */
interface DecideOptions<B> {
  /** The contacts file run whose rows are decided (`contacts upsert --file`'s). */
  base: FileBatchSpec<B>;
  /** The CONTACT field definitions as the API lists them now, by key. */
  fields: ReadonlyMap<string, FieldDefinition>;
  /** --plan: where the plan goes (nothing is sent). */
  plan?: PlanOutput;
  /** --exit-code: a run that found differences exits 9. */
  exitCode: boolean;
  /** --key-column: the ledger of the file's keys and their contacts. */
  keys?: ContactKeys;
}

/**
 * The decide phase as the file run takes it (its rows' inputs): each valid row of the contacts
 * file is decided against the refreshed snapshot (src/sync/decide.ts) as it is prepared; an
 * `unchanged` row comes back done (no request), the others as `contacts upsert --file` sends
 * them, ordered with the rows that may reach the same contact; the summary says what was decided.
 */
export function decidedRows<B extends Record<string, unknown>>(
  snapshot: Snapshot,
  opts: DecideOptions<B>,
): { rows: FileRowsSpec<B>; counts: SyncCounts } {
  const { base, plan, keys } = opts;
  const counts = new SyncCounts(snapshot.refresh);
  const decider = new SyncDecider(snapshot, opts.fields);
  // The order keys of the snapshot contacts each row to send may change (Decision.reaches).
  const reaching = new WeakMap<B, string[]>();
  const keysOf = (body: unknown): string[] => [base.orderKey?.(body as B) ?? []].flat();
  const prepare: FileRowsSpec<B>['prepare'] = (row, columns): Prepared<B> => {
    const prepared = keyed(base.prepare(row, columns), row);
    if (prepared.invalid || prepared.done) return prepared;
    const decision = decider.decide(prepared.payload);
    const byKey = keys?.decided(prepared.payload, decision);
    counts.see(decision);
    plan?.add(row.line, prepared.identifier, decision, shownContact(prepared.payload, prepared.identifier));
    if (decision.action === 'unchanged')
      return {
        identifier: prepared.identifier,
        done: { status: 'unchanged', id: decision.cnvContactId },
        payload: prepared.payload,
      };
    // As the upsert keys them (the contact's id and email, as a row naming it so would be keyed).
    reaching.set(
      prepared.payload,
      (decision.reaches ?? []).flatMap((c) => keysOf({ cnvContactId: c.id, email: c.email?.trim() ?? undefined })),
    );
    const why = decision.unsure && `sent because cnv cannot be sure it changes nothing: ${decision.unsure.detail}`;
    return noted(prepared, byKey, why);
  };
  // --key-column: the row given the contact its key had (docs/sync.md, "A key column"), or refused for its key.
  const keyed = (prepared: Prepared<B>, row: InputRow): Prepared<B> => {
    if (!keys || prepared.invalid || prepared.done) return prepared;
    try {
      const { body, note } = keys.keyed(row, prepared.payload, (id) => decider.holds(id));
      return noted({ ...prepared, payload: body as B }, note);
    } catch (err) {
      if (!(err instanceof InvalidRowError)) throw err;
      return { identifier: prepared.identifier, invalid: { error: err.code, message: err.message } };
    }
  };
  const rows: FileRowsSpec<B> = {
    prepare,
    send: keys ? keys.recording(base.send) : base.send,
    request: base.request,
    // A row by email waits for an earlier row that changes the contact it reaches by id, and the reverse.
    orderKey: (body) => [...new Set([...keysOf(body), ...(reaching.get(body) ?? [])])],
    summary: {
      first: plan ? (batch, elapsedMs) => counts.settle(batch).planSummary(batch.rows, elapsedMs) : undefined,
      outcome: (batch) => counts.outcome(batch, base.options.mode),
      line: (batch) => [counts.settle(batch).line(base.options.mode), keys?.line()].filter(Boolean).join('\n'),
      data: (batch) => ({ ...counts.settle(batch).data(), ledger: keys?.data() ?? null }),
      exitCode: (code) => (opts.exitCode && counts.pending > 0 ? ExitCode.pendingChanges : code),
    },
  };
  return { rows, counts };
}

/** A row to send with more notes for its report line. */
function noted<B>(
  prepared: Extract<Prepared<B>, { invalid?: undefined; done?: undefined }>,
  ...more: Array<string | false | undefined>
): Prepared<B> {
  const notes = [prepared.note, ...more].filter(Boolean);
  return notes.length > 0 ? { ...prepared, note: notes.join('; ') } : prepared;
}

/**
 * A contact as the plan's table names it: by the row's email when it has one (an `id` column's UUID
 * tells a reader little), else the row's identifier.
 */
function shownContact(body: Record<string, unknown>, identifier: string): string {
  return typeof body.email === 'string' && body.email.trim() !== '' ? body.email.trim() : identifier;
}
