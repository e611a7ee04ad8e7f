import { endpointOf } from '../../endpoints/endpoints.js';
import { idempotencyOf } from '../../http/endpoint.js';
import type { Idempotency } from '../../http/retry-policy.js';

/**
 * Whether `cnv api` may retry this request after a failure that may have reached the server,
 * as the commands that call the endpoint do: by the endpoint table (src/endpoints/endpoints.ts: reads,
 * upserts and add-to-list calls are safe; create field, create relationship fields and trigger
 * workflow are not; track event is safe only with a clientEventId, which the API drops a repeat
 * by). A path the spec does not name: GET and DELETE are idempotent by their HTTP meaning; any
 * other method is unsafe, retried only when the request provably never reached the server.
 */
export function apiIdempotency(method: string, path: string, body: unknown): Idempotency {
  const endpoint = endpointOf(method, path);
  if (endpoint) return idempotencyOf(endpoint, body);
  return method === 'GET' || method === 'DELETE' ? 'safe' : 'unsafe';
}
