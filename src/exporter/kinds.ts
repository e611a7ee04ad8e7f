import { ENDPOINTS } from '../endpoints/endpoints.js';
import type { EmailEventType, ExportRow, PageReceiver } from '../endpoints/exports.js';
import type { HttpClient } from '../http/client.js';
import { contentHash } from '../lib/content-hash.js';
import type { ExportKind } from './state.js';

/** What one export fetches: its kind, email type and (custom events) window. */
export interface ExportTarget {
  kind: ExportKind;
  emailType?: EmailEventType;
  window?: { since: string; until?: string };
}

/** One page from `cursor`, or the first page when it is null, its rows streamed into `receive()`. */
export function fetchPage<P>(
  http: HttpClient, target: ExportTarget, cursor: string | null, limit: number, receive: () => PageReceiver<P>, signal: AbortSignal,
): Promise<P> {
  const c = cursor ?? undefined;
  switch (target.kind) {
    case 'contacts':
      return http.call(ENDPOINTS.exportContacts, { body: { cursor: c, limit }, signal, receive });
    case 'custom-events': {
      // The window goes with the first call only, the cursor alone after (it carries the window).
      const w = target.window;
      const body = c ? { cursor: c, limit } : { occurredAt: w ? { start: w.since, ...(w.until ? { end: w.until } : {}) } : undefined, limit };
      return http.call(ENDPOINTS.exportCustomEvents, { body, signal, receive });
    }
    case 'email-events':
      return http.call(ENDPOINTS.exportEmailEvents, { body: { eventType: target.emailType!, cursor: c, limit }, signal, receive });
  }
}

/**
 * What makes a row "already delivered". Events never change, so their id is enough. A contact
 * written again since is a new row to deliver: its identity is `id@updatedAt#<content hash>`,
 * the hash of its JSON text as sent (`text`), so a second version within one timestamp (a
 * server keeping whole seconds) is delivered too, and the same version sent again is not.
 */
export function rowIdentity(kind: ExportKind, row: ExportRow, text: string): string {
  if (kind === 'contacts') return `${versionOf(row)}#${contentHash(text)}`;
  return String(row.eventId);
}

/** `id@updatedAt`: a contact's identity as states saved it before content hashes (see legacyIdentities). */
export function versionOf(row: ExportRow): string {
  return `${String(row.id)}@${String(row.updatedAt ?? '')}`;
}

/**
 * The identities of `seen` saved without a content hash (`id@updatedAt`, by a cnv before
 * content identities): each still skips that version, whatever its content, so a state saved
 * then continues exactly once. None in a state saved since (events have no `@`).
 */
export function legacyIdentities(seen: Iterable<string>): ReadonlySet<string> | undefined {
  let out: Set<string> | undefined;
  for (const id of seen) if (id.includes('@') && !id.includes('#')) (out ??= new Set()).add(id);
  return out;
}
