import { UPSERT_BODY_KEYS, type UpsertContactBody } from '../endpoints/contacts.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import { sameValue } from './same-value.js';
import type { Snapshot } from './snapshot.js';
import type { SnapshotContact } from './snapshot-file.js';
import { normalizeEmail } from './snapshot-index.js';

/** One value a row changes: `email`, `subscriptionStatus` or `fields.<key>`, from old to new (null: unset). */
export interface Change {
  field: string;
  old: unknown;
  new: unknown;
}

/** Why a row is sent although cnv cannot tell whether it changes anything (counted in the summary). */
export type UnsureReason =
  | 'shared label'
  | 'field newer than snapshot'
  | 'not in field list'
  | 'value not exact in export'
  | 'id not in snapshot'
  | 'update-only, not in snapshot'
  | 'same email, same time'
  | 'company fields'
  | 'other body member'
  | 'earlier row, same contact';

/** What a row would do to the account. */
export interface Decision {
  action: 'create' | 'update' | 'unchanged';
  /** The contact it matched in the snapshot. */
  cnvContactId?: string;
  changes: Change[];
  /** Set when the row is sent because cnv cannot be sure: the reason, and the words for it. */
  unsure?: { reason: UnsureReason; detail: string };
  /**
   * A row to send: the contacts of the snapshot it may change, by their id and email there. Rows
   * that may reach one contact are sent in file order, whatever identifiers they name it by.
   */
  reaches?: Array<{ id: string; email: string | null }>;
}

/** The body members a row is compared by (any other member makes the row unsure). */
const COMPARED = new Set<string>(UPSERT_BODY_KEYS);

/** The contact a row names in the snapshot, the slots of every contact it may reach, and why cnv cannot be sure, if it cannot. */
interface Found {
  contact?: SnapshotContact;
  slots: number[];
  unsure?: Decision['unsure'];
}

const EARLIER_ROW = {
  reason: 'earlier row, same contact',
  detail: 'an earlier row of the file changes this contact',
} as const;

/**
 * Decides, against the snapshot, what one upsert body would change. Skips (`unchanged`) only
 * when sure: every member compared, every field read back exactly by a label only it had.
 * Rows of one file apply in order: once a row is sent, a later row that may reach the contact
 * it changes is sent too (the snapshot no longer tells its effect), and so is a later row by an
 * email whose lookup an earlier row may have changed (a row by email reaches the most recently
 * updated contact of that email: updating another contact of the email, or giving a contact
 * the email, changes which one that is).
 */
export class SyncDecider {
  /** Snapshot slots of contacts an earlier sent row may change. */
  private readonly touched = new Set<number>();
  /** Emails (normalized) an earlier sent row gives a contact: a lookup by them may find another contact now. */
  private readonly emails = new Set<string>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly fields: ReadonlyMap<string, FieldDefinition>,
  ) {}

  decide(body: UpsertContactBody): Decision {
    const found = this.find(body);
    if (found.unsure)
      return this.sent(
        {
          action: 'update',
          ...(found.contact ? { cnvContactId: found.contact.id } : {}),
          changes: [],
          unsure: found.unsure,
        },
        found.slots,
        body,
      );
    const { contact } = found;
    if (!contact) {
      if (body.updateOnly === true)
        return this.sent(
          {
            action: 'update',
            changes: [],
            unsure: {
              reason: 'update-only, not in snapshot',
              detail:
                'update-only, and no contact with this email in the snapshot (the API answers contact_not_found ' +
                'unless one was made since)',
            },
          },
          [],
          body,
        );
      return this.sent({ action: 'create', changes: creations(body) }, [], body);
    }
    const decision = this.compare(body, contact);
    if (decision.action === 'unchanged') return decision;
    return this.sent(decision, found.slots, body);
  }

  /** Whether the snapshot holds the contact with this id (not one deleted in the account, once a full refresh saw it). */
  holds(id: string): boolean {
    const { index, reader } = this.snapshot;
    return index.slotsById(id).some((slot) => reader.read(slot).id === id);
  }

  private sent(decision: Decision, slots: number[], body: UpsertContactBody): Decision {
    for (const slot of slots) this.touched.add(slot);
    const reaches = slots.map((slot) => this.snapshot.reader.read(slot)).map(({ id, email }) => ({ id, email }));
    // An email a reached contact has already is covered by its slot: only a new one (a contact made, or moved onto it) is kept.
    const email = body.email === undefined ? undefined : normalizeEmail(body.email);
    if (email !== undefined && !reaches.some((c) => c.email !== null && normalizeEmail(c.email) === email))
      this.emails.add(email);
    return { ...decision, reaches };
  }

  private find(body: UpsertContactBody): Found {
    const { index, reader } = this.snapshot;
    if (body.cnvContactId !== undefined) {
      // A hash narrows; the id read back decides (a collision never matches another contact).
      for (const slot of index.slotsById(body.cnvContactId)) {
        const contact = reader.read(slot);
        if (contact.id !== body.cnvContactId) continue;
        return this.touched.has(slot) ? { contact, slots: [slot], unsure: EARLIER_ROW } : { contact, slots: [slot] };
      }
      return {
        slots: [],
        unsure: {
          reason: 'id not in snapshot',
          detail:
            'its cnvContactId is not in the snapshot (the API answers contact_not_found unless the contact was made since)',
        },
      };
    }
    const email = normalizeEmail(body.email ?? '');
    const matches: Array<{ slot: number; contact: SnapshotContact }> = [];
    for (const slot of index.slotsByEmail(email)) {
      const contact = reader.read(slot);
      if (contact.email !== null && normalizeEmail(contact.email) === email) matches.push({ slot, contact });
    }
    const slots = matches.map((m) => m.slot);
    // An earlier row made, moved onto this email, or changed a contact of it: which one a lookup
    // finds now is not in the snapshot.
    if (this.emails.has(email) || slots.some((s) => this.touched.has(s))) {
      return {
        slots,
        unsure: {
          reason: EARLIER_ROW.reason,
          detail:
            'an earlier row of the file changes this contact, or another contact with this email, or gives a contact this email',
        },
      };
    }
    if (matches.length <= 1) return { contact: matches[0]?.contact, slots };
    // The spec: a lookup by email finds the most recently updated contact.
    matches.sort((a, b) => b.contact.updatedMs - a.contact.updatedMs);
    const [best, next] = matches;
    if (Number.isNaN(best.contact.updatedMs) || !(best.contact.updatedMs > next.contact.updatedMs)) {
      // Whichever the API picks, a later row of any of them is not told by the snapshot.
      return {
        slots,
        unsure: {
          reason: 'same email, same time',
          detail: `${matches.length} contacts have this email, and which one was updated last is not certain`,
        },
      };
    }
    return { contact: best.contact, slots: [best.slot] };
  }

  private compare(body: UpsertContactBody, contact: SnapshotContact): Decision {
    const changes: Change[] = [];
    let unsure: Decision['unsure'];
    const doubt = (reason: UnsureReason, detail: string) => (unsure ??= { reason, detail });
    for (const key of Object.keys(body)) {
      if (!COMPARED.has(key)) doubt('other body member', `the body member "${key}" is not in the export`);
    }
    if (body.companyFields !== undefined && Object.keys(body.companyFields as object).length > 0)
      doubt('company fields', 'companyFields are not in the contacts export');
    // With cnvContactId, email is the new address; alone it only finds the contact (any case).
    if (body.cnvContactId !== undefined && body.email !== undefined && body.email !== contact.email)
      changes.push({ field: 'email', old: contact.email, new: body.email });
    const status = body.subscriptionStatus;
    if (status !== undefined && status !== contact.subscriptionStatus)
      changes.push({ field: 'subscriptionStatus', old: contact.subscriptionStatus ?? null, new: status });
    // The contact's line keys its fields by the labels of when it was fetched (a field relabelled since is read by its old one).
    const then = this.snapshot.fieldsAt(contact.offset);
    for (const [key, value] of Object.entries(body.fields ?? {})) {
      const def = this.fields.get(key);
      const label = then.labelOf(key);
      const stored = label !== undefined && Object.hasOwn(contact.fields, label) ? contact.fields[label] : null;
      const shared = then.doubt(key);
      if (!def) doubt('not in field list', `field "${key}" is not in the field list`);
      else if (label === undefined)
        doubt('field newer than snapshot', `field "${key}" was created after this contact was fetched`);
      else if (shared) doubt('shared label', shared);
      else {
        const verdict = sameValue(def.dataType, stored, value);
        if (verdict === 'same') continue;
        if (verdict === 'unsure') {
          const shows = `the export shows field "${key}" as ${JSON.stringify(stored)}`;
          doubt('value not exact in export', `${shows}, which may or may not be ${JSON.stringify(value)} as stored`);
        }
      }
      changes.push({ field: `fields.${key}`, old: stored, new: value });
    }
    if (unsure) return { action: 'update', cnvContactId: contact.id, changes, unsure };
    return { action: changes.length > 0 ? 'update' : 'unchanged', cnvContactId: contact.id, changes };
  }
}

/** What a new contact gets: every value the row gives. */
function creations(body: UpsertContactBody): Change[] {
  const changes: Change[] = [];
  if (body.email !== undefined) changes.push({ field: 'email', old: null, new: body.email });
  if (body.subscriptionStatus !== undefined)
    changes.push({ field: 'subscriptionStatus', old: null, new: body.subscriptionStatus });
  for (const [key, value] of Object.entries(body.fields ?? {}))
    changes.push({ field: `fields.${key}`, old: null, new: value });
  return changes;
}
