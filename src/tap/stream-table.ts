/** The tap's streams, in the order a run syncs them. */
export const STREAM_NAMES = ['contacts', 'custom_events', 'email_events', 'fields', 'campaigns'] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** What the catalog and the SCHEMA messages say of a stream. */
interface StreamSpec {
  key: string;
  /** An INCREMENTAL stream's replication key; none for a FULL_TABLE one (read whole every run). */
  replicationKey?: string;
  method: 'INCREMENTAL' | 'FULL_TABLE';
}

export const STREAMS: Record<StreamName, StreamSpec> = {
  contacts: { key: 'id', replicationKey: 'updatedAt', method: 'INCREMENTAL' },
  custom_events: { key: 'eventId', replicationKey: 'occurredAt', method: 'INCREMENTAL' },
  email_events: { key: 'eventId', replicationKey: 'occurredAt', method: 'INCREMENTAL' },
  fields: { key: 'key', method: 'FULL_TABLE' },
  campaigns: { key: 'id', method: 'FULL_TABLE' },
};

/** Whether a name is one of the tap's streams. */
export function isStreamName(name: string): name is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(name);
}
