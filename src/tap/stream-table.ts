import type { ExportKind } from '../exporter/state.js';

/** The tap's streams, in the order a run syncs them. */
export const STREAM_NAMES = ['contacts', 'custom_events', 'email_events'] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** What the catalog and the SCHEMA messages say of a stream. */
interface StreamSpec {
  kind: ExportKind;
  key: string;
  replicationKey: string;
}

export const STREAMS: Record<StreamName, StreamSpec> = {
  contacts: { kind: 'contacts', key: 'id', replicationKey: 'updatedAt' },
  custom_events: { kind: 'custom-events', key: 'eventId', replicationKey: 'occurredAt' },
  email_events: { kind: 'email-events', key: 'eventId', replicationKey: 'occurredAt' },
};
