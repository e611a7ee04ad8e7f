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
 * What makes a row "already delivered". Events never change, so their id is enough. A contact
 * written again since is a new row to deliver: its identity is `id@updatedAt`, and where
 * updatedAt cannot tell two versions apart (whole seconds: no fraction, or only zeros) also the
 * hash of its JSON text as sent (`id@updatedAt#<hash>`), so a second version within one second
 * is delivered too, and the same version sent again is not. Hashing every row's text cost about
 * a fifth of an export's CPU; a millisecond updatedAt names a version alone.
 */
export function rowIdentity(kind: ExportKind, row: ExportRow, text: string): string {
  if (kind !== 'contacts') return String(row.eventId);
  const version = versionOf(row);
  return wholeSeconds(row.updatedAt) ? `${version}#${contentHash(text)}` : version;
}

/** A timestamp without a sub-second part (`…:05Z`, `…:05.000Z`), or not a text: two versions may share it. */
function wholeSeconds(at: unknown): boolean {
  if (typeof at !== 'string') return true;
  const dot = at.indexOf('.', 17);
  if (dot < 0) return true;
  for (let i = dot + 1; i < at.length; i++) {
    const c = at.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (c !== 48) return false;
  }
  return true;
}

/** `id@updatedAt`: a contact's identity as states saved it before content hashes (see legacyIdentities). */
export function versionOf(row: ExportRow): string {
  return `${String(row.id)}@${String(row.updatedAt ?? '')}`;
}

/**
 * The identities of `seen` that name a whole-second version without its content hash (saved by a
 * cnv before content identities): each still skips that version, whatever its content, so a
 * state saved then continues exactly once. None in a state saved since (events have no `@`).
 */
export function legacyIdentities(seen: Iterable<string>): ReadonlySet<string> | undefined {
  let out: Set<string> | undefined;
  for (const id of seen) {
    const at = id.indexOf('@');
    if (at >= 0 && !id.includes('#') && wholeSeconds(id.slice(at + 1))) (out ??= new Set()).add(id);
  }
  return out;
}
