import { ENDPOINTS } from '../endpoints/endpoints.js';
import type { EmailEventType, ExportRow, PageReceiver } from '../endpoints/exports.js';
import type { HttpClient } from '../http/client.js';
import { contentLanes, laneB, mix } from '../lib/content-hash.js';
import { hashId, type RowKey } from './id-table.js';
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
 * change, so their id is enough. A contact written again since is a new row to deliver: its
 * identity is its version (`id@updatedAt`) and the hash of its JSON text as sent
 * (`id@updatedAt#<hash>`): updatedAt alone cannot tell two versions apart when they share it (a
 * server of whole seconds, or two writes within one millisecond), and the same version sent
 * again is still the same row. `key` is filled and returned (one object per page, not per row).
 */
export function rowKey(kind: ExportKind, row: ExportRow, text: string, key: RowKey): RowKey {
  if (kind !== 'contacts') {
    key.head = String(row.eventId);
    key.tail = undefined;
    key.hash = hashId(key.head);
    return key;
  }
  key.head = String(row.id);
  key.tail = String(row.updatedAt ?? '');
  key.a = contentLanes(text);
  key.b = laneB;
  key.hash = mix(key.a ^ Math.imul(key.b, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return key;
}

/** `id@updatedAt`: a contact's identity as states saved it before content hashes (see legacyIdentities). */
export function versionOf(row: ExportRow): string {
  return `${String(row.id)}@${String(row.updatedAt ?? '')}`;
}

/**
 * The identities of `seen` that name a contact's version without its content hash (saved by a
 * cnv before content identities, whatever the precision of updatedAt): each still skips that
 * version, whatever its content, so a state saved then continues exactly once. None in a state
 * saved since (events have no `@`).
 */
export function legacyIdentities(seen: Iterable<string>): ReadonlySet<string> | undefined {
  let out: Set<string> | undefined;
  for (const id of seen) if (id.includes('@') && !id.includes('#')) (out ??= new Set()).add(id);
  return out;
}
