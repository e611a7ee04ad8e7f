import { randomUUID } from 'node:crypto';
import { recordsOf } from './custom-objects.js';
import { applyFieldWrites, type FieldWrite } from './field-values.js';
import type { CustomObjectRecord } from './model.js';
import { resolveRelationship } from './relationships.js';
import type { BusinessStore } from './store.js';

/** What one record write did. */
export interface RecordWrite {
  record: CustomObjectRecord;
  operation: 'CREATE' | 'UPDATE';
}

/**
 * Creates or updates the record with this clientDedupKey from validated writes: fields not
 * written are kept, null clears, relationship values are resolved or left pending.
 * `init` fixes the id and timestamp (seed data); otherwise a new UUID and the clock.
 */
export function writeRecord(
  store: BusinessStore,
  customObjectId: string,
  clientDedupKey: string,
  writes: FieldWrite[],
  init: { id?: string; at?: string } = {},
): RecordWrite {
  const all = recordsOf(store, customObjectId);
  const now = init.at ?? store.clock.now();
  let record = all.get(clientDedupKey);
  const operation = record ? 'UPDATE' : 'CREATE';
  if (!record) {
    record = {
      id: init.id ?? randomUUID(),
      customObjectId,
      clientDedupKey,
      fields: {},
      pendingRelationships: {},
      relationships: {},
      createdAt: now,
      updatedAt: now,
    };
    all.set(clientDedupKey, record);
  }
  applyFieldWrites(record.fields, writes, false);
  linkRelationships(store, record, writes);
  record.updatedAt = now;
  return { record, operation };
}

/** Resolves written relationship values; a missing target is kept pending (never created). */
function linkRelationships(store: BusinessStore, record: CustomObjectRecord, writes: FieldWrite[]): void {
  for (const { def, value } of writes) {
    if (!def.relationship) continue;
    delete record.pendingRelationships[def.key];
    delete record.relationships[def.key];
    if (value === null || value === '') continue;
    const targetId = resolveRelationship(store, def.relationship, String(value));
    if (targetId) record.relationships[def.key] = targetId;
    else record.pendingRelationships[def.key] = String(value);
  }
}
