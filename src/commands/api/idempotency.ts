import type { Idempotency } from '../../http/retry-policy.js';

const UUIDISH = '[^/]+';

/**
 * POST endpoints of the spec that may be sent twice with the same effect, so `cnv api` retries
 * them like the commands that call them do: reads (the exports), upserts and add-to-list calls
 * whose repeat changes nothing. Any other POST (create field, create relationship fields,
 * trigger workflow, a path the spec does not name) is unsafe: retried only when it provably
 * never reached the server. Easy to change: one pattern per endpoint.
 */
const IDEMPOTENT_POSTS: RegExp[] = [
  /^\/v2\/contacts$/,
  new RegExp(`^/v2/(audiences|campaigns)/${UUIDISH}/contacts(/batch)?$`),
  new RegExp(`^/v2/custom-objects/${UUIDISH}/records/batch$`),
  /^\/v2\/exports\/(contacts|custom-events|email-events)$/,
];

/**
 * Whether `cnv api` may retry this request after a failure that may have reached the server.
 * GET and DELETE are idempotent (the spec's one DELETE succeeds when already done); POST only on
 * the endpoints above, and track event only with a clientEventId (the API drops a repeat); PUT
 * and PATCH name no endpoint of the spec, so they are not retried.
 */
export function apiIdempotency(method: string, path: string, body: unknown): Idempotency {
  if (method === 'GET' || method === 'DELETE') return 'safe';
  if (method !== 'POST') return 'unsafe';
  if (IDEMPOTENT_POSTS.some((p) => p.test(path))) return 'safe';
  if (path === '/v2/events') {
    const id = (body as { clientEventId?: unknown } | null)?.clientEventId;
    return typeof id === 'string' && id !== '' ? 'safe' : 'unsafe';
  }
  return 'unsafe';
}
