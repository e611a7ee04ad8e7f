import { z } from 'zod';
import { once } from '../lib/once.js';

/** `data` of POST /v2/events. */
export const trackResult = once(() =>
  z.looseObject({
    cnvEventId: z.string(),
    cnvContactId: z.string(),
    duplicate: z.boolean().optional(),
  }),
);

export interface TrackEventBody {
  event: string;
  userId?: string;
  email?: string;
  /** Always set by the caller, so that every retry is deduplicated by the API (the row's repeat is keyed by it). */
  clientEventId: string;
  data?: Record<string, unknown>;
  [extra: string]: unknown;
}
