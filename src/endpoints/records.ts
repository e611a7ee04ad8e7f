import { z } from 'zod';
import { once } from '../lib/once.js';

/** `data` of POST /v2/custom-objects/{customObjectId}/records/batch. */
export const recordsResult = once(() => {
  // One per-record result. The spec shows only the success shape; the failed shape and
  // `pendingRelationships` are tolerated loosely so another server's variant still parses.
  const recordResult = z.looseObject({
    success: z.boolean(),
    id: z.string().optional(),
    clientDedupKey: z.string().nullable().optional(),
    operation: z.string().optional(),
    error: z.unknown().optional(),
    message: z.string().optional(),
    pendingRelationships: z.array(z.string()).optional(),
  });
  return z.looseObject({
    processed: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    results: z.array(recordResult),
  });
});
export type RecordResult = z.output<ReturnType<typeof recordsResult>>['results'][number];

/** One record of a batch request. */
export interface RecordInput {
  clientDedupKey: string;
  fields: Record<string, unknown>;
}
