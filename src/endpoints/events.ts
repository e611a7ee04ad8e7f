import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf } from './endpoints.js';

const trackResultSchema = z.looseObject({
  cnvEventId: z.string(),
  cnvContactId: z.string(),
  duplicate: z.boolean().optional(),
});

export interface TrackEventBody {
  event: string;
  userId?: string;
  email?: string;
  /** Always set by the caller, so that every retry is deduplicated by the API. */
  clientEventId: string;
  data?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** The track request (what a --dry-run shows and trackEvent sends). */
export function trackEventRequest(body: TrackEventBody) {
  return { method: ENDPOINTS.trackEvent.method, path: ENDPOINTS.trackEvent.path, body };
}

/** POST /v2/events. Safe to retry because the body always carries a clientEventId. */
export async function trackEvent(http: HttpClient, body: TrackEventBody, signal?: AbortSignal) {
  const res = await http.request({ ...trackEventRequest(body), data: trackResultSchema, idempotency: idempotencyOf(ENDPOINTS.trackEvent, body), signal });
  return res.data;
}
