import { assertCustomObjectsEnabled, requireCustomObject } from '../custom-object-access.js';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { validateFieldWrites, type FieldWrite } from '../field-values.js';
import type { CustomObject } from '../model.js';
import { writeRecord } from '../record-writer.js';
import { linksOf, refreshTargets, type Touched } from '../relationships.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { isPlainObject, isUuid } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** Records per batch request (the spec's limit). */
const RECORDS_PER_BATCH = ENDPOINTS.upsertRecords.items;

/** POST /v2/custom-objects/:customObjectId/records/batch (edit-records permission). */
export function recordRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.upsertRecords, batchUpsert, { permission: 'records:edit' });
}

type RecordResult =
  | {
      success: true;
      id: string;
      clientDedupKey: string;
      operation: 'CREATE' | 'UPDATE';
      pendingRelationships?: string[];
    }
  | { success: false; clientDedupKey: string | null; error: string; message: string };

function batchUpsert({ params, body, store }: ApiContext): RouteResult {
  assertCustomObjectsEnabled(store);
  // A path id that is not a UUID names nothing: 404, as for every resource in a path.
  if (!isUuid(params.customObjectId))
    throw new EmulatorError(
      404,
      'custom_object_not_found',
      `No custom object ${params.customObjectId} in this workspace`,
    );
  const customObject = requireCustomObject(store, params.customObjectId);
  const records = body.records;
  if (!Array.isArray(records) || records.length < RECORDS_PER_BATCH.min || records.length > RECORDS_PER_BATCH.max) {
    throw invalidRequest(`records must be an array of ${RECORDS_PER_BATCH.min} to ${RECORDS_PER_BATCH.max} items`);
  }
  // Sequential, in input order: a repeated clientDedupKey sees the earlier item's write.
  // The reverse side of every target is refreshed once, after the batch.
  const touched: Touched = new Map();
  const results = records.map((item, i) => upsertOne(store, customObject, item, i, touched));
  refreshTargets(store, touched);
  const succeeded = results.filter((r) => r.success).length;
  return {
    body: { data: { processed: results.length, succeeded, failed: results.length - succeeded, results } },
  };
}

function upsertOne(
  store: BusinessStore,
  customObject: CustomObject,
  item: unknown,
  index: number,
  touched: Touched,
): RecordResult {
  const at = `records[${index}]`;
  if (!isPlainObject(item)) return failed(null, 'invalid_request', `${at} must be an object`);
  const key = item.clientDedupKey;
  if (typeof key !== 'string' || key.trim() === '') {
    return failed(null, 'invalid_request', `${at}.clientDedupKey is required (a non-empty string)`);
  }
  const fields = item.fields ?? {};
  if (!isPlainObject(fields)) return failed(key, 'invalid_request', `${at}.fields must be a JSON object`);
  let writes: FieldWrite[];
  try {
    writes = validateFieldWrites(store, 'CUSTOM_OBJECT', fields, {
      mapName: 'fields',
      customObjectId: customObject.id,
    });
  } catch (err) {
    if (err instanceof EmulatorError) return failed(key, err.code, err.message);
    throw err;
  }

  const { record, operation } = writeRecord(store, customObject.id, { clientDedupKey: key, writes, touched });
  const pending = Object.keys(linksOf(store, record.id).pending);
  return {
    success: true,
    id: record.id,
    clientDedupKey: key,
    operation,
    ...(pending.length ? { pendingRelationships: pending } : {}),
  };
}

function failed(clientDedupKey: string | null, error: string, message: string): RecordResult {
  return { success: false, clientDedupKey, error, message };
}
