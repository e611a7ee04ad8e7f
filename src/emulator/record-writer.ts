import { randomUUID } from 'node:crypto';
import { recordsOf } from './custom-object-access.js';
import { applyFieldWrites, sameFieldMaps, type FieldWrite } from './field-values.js';
import type { CustomObjectRecord } from './model.js';
import { settlePending, syncSourceLinks, type Touched } from './relationships.js';
import type { BusinessStore } from './store.js';

/**
 * Creates or updates the record with this clientDedupKey from validated writes: fields not
 * written are kept, null clears, relationship values are resolved or left pending, the
 * reverse side of their targets is maintained, and relationships pending on this record
 * (its clientDedupKey) resolve. A write that changes nothing keeps `updatedAt`.
 * `init` fixes the id and timestamp (seed data: no timestamp moves); otherwise a new UUID and the clock.
 * With `touched`, the reverse side of the targets is left for the caller to refresh (a batch does it once).
 */
export function writeRecord(
  store: BusinessStore,
  customObjectId: string,
  {
    clientDedupKey,
    writes,
    touched,
    ...init
  }: { clientDedupKey: string; writes: FieldWrite[]; id?: string; at?: string; touched?: Touched },
): {
  record: CustomObjectRecord;
  operation: 'CREATE' | 'UPDATE';
} {
  const all = recordsOf(store, customObjectId);
  const opts = { stamp: init.at === undefined, touched };
  let record = all.get(clientDedupKey);
  const operation = record ? 'UPDATE' : 'CREATE';
  if (!record) {
    const now = init.at ?? store.clock.now();
    record = {
      id: init.id ?? randomUUID(),
      customObjectId,
      clientDedupKey,
      fields: {},
      createdAt: now,
      updatedAt: now,
    };
    all.set(clientDedupKey, record);
    store.recordsById.set(record.id, record);
  }
  const before = { ...record.fields };
  applyFieldWrites(record.fields, writes, false);
  if (operation === 'UPDATE' && !sameFieldMaps(before, record.fields)) record.updatedAt = init.at ?? store.clock.now();
  syncSourceLinks(
    store,
    { type: 'CUSTOM_OBJECT', id: record.id, fields: record.fields },
    writes.map((w) => w.def),
    opts,
  );
  if (operation === 'CREATE') settlePending(store, 'CUSTOM_OBJECT', [clientDedupKey], opts);
  return { record, operation };
}
