import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf } from './endpoints.js';

/** Records per batch request (the spec's limit). */
export const MAX_RECORDS_PER_BATCH = ENDPOINTS.upsertRecords.items.max;

/**
 * One per-record result. The spec shows only the success shape; the failed shape and
 * `pendingRelationships` are tolerated loosely so another server's variant still parses.
 */
const recordResultSchema = z.looseObject({
  success: z.boolean(),
  id: z.string().optional(),
  clientDedupKey: z.string().nullable().optional(),
  operation: z.string().optional(),
  error: z.unknown().optional(),
  message: z.string().optional(),
  pendingRelationships: z.array(z.string()).optional(),
});
export type RecordResult = z.output<typeof recordResultSchema>;

const batchResultSchema = z.looseObject({
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  results: z.array(recordResultSchema),
});

/** One record of a batch request. */
export interface RecordInput {
  clientDedupKey: string;
  fields: Record<string, unknown>;
}

/** POST /v2/custom-objects/{id}/records/batch. An upsert by key converges when repeated, so it is retried. */
export async function upsertRecords(http: HttpClient, customObjectId: string, records: RecordInput[], signal?: AbortSignal) {
  const res = await http.request({ ...upsertRecordsRequest(customObjectId, records), data: batchResultSchema, idempotency: idempotencyOf(ENDPOINTS.upsertRecords), signal });
  return res.data;
}

/** The records request (what a --dry-run shows and upsertRecords sends). */
export function upsertRecordsRequest(customObjectId: string, records: RecordInput[]) {
  return { method: ENDPOINTS.upsertRecords.method, path: pathOf(ENDPOINTS.upsertRecords, { customObjectId }), body: { records } };
}
