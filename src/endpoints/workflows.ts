import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf } from './endpoints.js';

const triggerResultSchema = z.looseObject({ triggered: z.boolean() });

export interface TriggerWorkflowBody extends ContactIdentifier {
  data?: Record<string, unknown>;
}

/**
 * POST /v2/workflows/{id}/trigger. Not idempotent (a repeat may run the workflow twice), so it is
 * retried only when the request provably never reached the server.
 */
export async function triggerWorkflow(http: HttpClient, workflowId: string, body: TriggerWorkflowBody, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.triggerWorkflow.method,
    path: pathOf(ENDPOINTS.triggerWorkflow, { workflowId }),
    body,
    data: triggerResultSchema,
    idempotency: idempotencyOf(ENDPOINTS.triggerWorkflow),
    signal,
  });
  return res.data;
}
