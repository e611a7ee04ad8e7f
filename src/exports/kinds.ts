import { exportContacts, exportCustomEvents, exportEmailEvents, type EmailEventType, type ExportRow, type PageReceiver } from '../endpoints/exports.js';
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
      return exportContacts(http, { cursor: c, limit }, receive, signal);
    case 'custom-events': {
      const w = target.window;
      const occurredAt = c || !w ? undefined : { start: w.since, ...(w.until ? { end: w.until } : {}) };
      return exportCustomEvents(http, { cursor: c, occurredAt, limit }, receive, signal);
    }
    case 'email-events':
      return exportEmailEvents(http, { eventType: target.emailType!, cursor: c, limit }, receive, signal);
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
