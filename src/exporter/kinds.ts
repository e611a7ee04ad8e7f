import { ENDPOINTS } from '../endpoints/endpoints.js';
import type { EmailEventType, ExportRow, PageReceiver } from '../endpoints/exports.js';
import type { HttpClient } from '../http/client.js';
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
 * What makes a row "already delivered". Events never change, so their id is enough; a contact
 * written again since is a new row to deliver, so its identity includes updatedAt.
 */
export function rowIdentity(kind: ExportKind, row: ExportRow): string {
  if (kind === 'contacts') return `${String(row.id)}@${String(row.updatedAt ?? '')}`;
  return String(row.eventId);
}
