import { ENDPOINTS } from '../endpoints/endpoints.js';
import type { EmailEventType, ExportRow, PageReceiver } from '../endpoints/exports.js';
import type { HttpClient } from '../http/client.js';
import { contentHash, contentLanesAt, laneB, mix } from '../lib/content-hash.js';
import type { MemberKeys } from '../lib/member-keys.js';
import { keyedLaneB, keyedLanesAt } from '../lib/keyed-hash.js';
import type { UnitBuffer } from '../lib/unit-buffer.js';
import { hashId, KEYED_MARK, type RowKey, type Skip } from './id-table.js';
import type { ExportKind } from '../endpoints/exports.js';

/** What one export fetches: its kind, email type and (custom events) window. */
export interface ExportTarget {
  kind: ExportKind;
  emailType?: EmailEventType;
  window?: { since: string; until?: string };
}

/** One page from `cursor`, or the first page when it is null, its rows streamed into `receive()`. */
export function fetchPage<P>(
  http: HttpClient,
  target: ExportTarget,
  cursor: string | null,
  limit: number,
  receive: () => PageReceiver<P>,
  signal: AbortSignal,
): Promise<P> {
  const c = cursor ?? undefined;
  switch (target.kind) {
    case 'contacts':
      return http.call(ENDPOINTS.exportContacts, { body: { cursor: c, limit }, signal, receive });
    case 'custom-events': {
      // The window goes with the first call only, the cursor alone after (it carries the window).
      const w = target.window;
      const body = c
        ? { cursor: c, limit }
        : { occurredAt: w ? { start: w.since, ...(w.until ? { end: w.until } : {}) } : undefined, limit };
      return http.call(ENDPOINTS.exportCustomEvents, { body, signal, receive });
    }
    case 'email-events':
      return http.call(ENDPOINTS.exportEmailEvents, {
        body: { eventType: target.emailType!, cursor: c, limit },
        signal,
        receive,
      });
  }
}

/**
 * What makes a row "already delivered", as a key (`identityText` is its text). Events never
 * change, so their id is enough: the event's key is filled in `key` and returned (one object per
 * page, not per row).
 */
export function eventKey(row: ExportRow, key: RowKey): RowKey {
  key.head = String(row.eventId);
  key.tail = undefined;
  key.hash = hashId(key.head);
  return key;
}

/**
 * A contact written again since is a new row to deliver: its identity is its version
 * (`id@updatedAt`) and the hash of its content: updatedAt alone cannot tell two versions apart
 * when they share it (a server of whole seconds, or two writes within one millisecond), and the
 * same version sent again is still the same row. The content's hash is of one of two forms
 * (`key.mark`): KEYED_MARK, the row's JSON text as sent with its fields named by key (`names`:
 * the field list the page was read under; src/lib/keyed-hash.ts), what a state saves, so a field
 * relabelled since changes no identity; TEXT_MARK, the text as sent, what a run compares a page
 * with the page before by (cheaper). The text is in units [from, to) of `buffer`; `key` is filled
 * and returned.
 */
export function contactKey(
  row: ExportRow,
  buffer: UnitBuffer,
  from: number,
  to: number,
  key: RowKey,
  names?: MemberKeys,
): RowKey {
  key.head = String(row.id);
  key.tail = String(row.updatedAt ?? '');
  key.a = key.mark === KEYED_MARK ? keyedLanesAt(buffer, from, to, names) : contentLanesAt(buffer, from, to);
  key.b = key.mark === KEYED_MARK ? keyedLaneB : laneB;
  key.hash = keyHash(key.a, key.b);
  return key;
}

/** The 32-bit hash a contact's key is found by in the tables, from its lanes. */
export function keyHash(a: number, b: number): number {
  return mix(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) >>> 0;
}

/** `id@updatedAt`: a contact's identity as states saved it before content hashes (see earlierIdentities). */
export function versionOf(row: ExportRow): string {
  return `${String(row.id)}@${String(row.updatedAt ?? '')}`;
}

/** `id@updatedAt#<hash of the text>`: a contact's identity as states saved it before its fields were named by key. */
export function textIdentityOf(row: ExportRow, text: string): string {
  return `${versionOf(row)}#${contentHash(text)}`;
}

// The text hash's 16 hex digits right after `#` (a keyed one has `#k` before them).
const TEXT_HASHED = /#[0-9a-f]{16}$/;

/**
 * What the receiver reads of saved identities besides the set: the ids they name (`heads`: a
 * row of another contact is never compared further), and those in an earlier cnv's forms, each
 * still matched as then, so a state saved then continues exactly once: `legacy`, a contact's
 * version without a content hash (before content identities), which skips that version whatever
 * its content; `texts`, with the hash of the row's text as sent, labels and all (before key-named
 * content), which skips the row sent with the same text. Events: none (no `@`).
 */
export function savedForms(saved: Iterable<string>): Pick<Skip, 'heads' | 'legacy' | 'texts'> {
  let heads: Set<string> | undefined;
  let legacy: Set<string> | undefined;
  let texts: Set<string> | undefined;
  for (const id of saved) {
    const at = id.indexOf('@');
    if (at < 0) continue;
    // Every prefix up to an `@`: an id holding one is still found.
    heads ??= new Set();
    for (let k = at; k >= 0; k = id.indexOf('@', k + 1)) heads.add(id.slice(0, k));
    if (!id.includes('#')) (legacy ??= new Set()).add(id);
    else if (TEXT_HASHED.test(id)) (texts ??= new Set()).add(id);
  }
  return { ...(heads ? { heads } : {}), ...(legacy ? { legacy } : {}), ...(texts ? { texts } : {}) };
}
