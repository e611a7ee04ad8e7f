import { payloadHash } from '../batch/file-run.js';
import type { UpsertContactBody } from '../endpoints/contacts.js';
import type { Ledger } from './ledger.js';
import type { LedgerRecord } from './ledger-file.js';

// A key names the contact the API answered for it: `contacts sync --key-column` (docs/sync.md,
// "A key column") and the target's contacts streams (docs/target.md) keep each key's cnvContactId
// in their job's ledger, and send a row that names no contact as its key's, so a person whose
// email changed in the source updates the same contact instead of creating a second one.

/** The contact the ledger recorded for `key`, for a body that names none itself; else undefined. */
export function contactOfKey(ledger: Ledger, key: string, body: UpsertContactBody): string | undefined {
  return body.cnvContactId === undefined ? ledger.entries.get(key)?.id : undefined;
}

/** The body sent as its key's contact: an upsert by cnvContactId updates that contact, its email too. */
export function asContactOfKey(body: UpsertContactBody, id: string): UpsertContactBody {
  const { cnvContactId: _none, ...rest } = body;
  return { cnvContactId: id, ...rest };
}

/** What the ledger records of a key's contact: the cnvContactId the API answered for its row (or found it as). */
export function contactRecord(key: string, body: UpsertContactBody, id: string | null): LedgerRecord {
  return ['put', key, payloadHash(body), 'ok', id, null];
}

/**
 * The record of the contact a row was found to be without a request (unchanged in the account),
 * when the ledger records none for its key, or another; undefined when it already has this one.
 */
export function foundContact(
  ledger: Ledger,
  key: string,
  body: UpsertContactBody,
  id: string,
): LedgerRecord | undefined {
  return ledger.entries.get(key)?.id === id ? undefined : contactRecord(key, body, id);
}
