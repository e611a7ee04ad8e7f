import type { Idempotency } from '../http/retry-policy.js';

/**
 * How a repeat of a request behaves, which decides its retries: `safe` (a repeat has the same
 * effect: reads, upserts, adding a member again, removing one already gone), `unsafe` (a
 * repeat may act twice: retried only when the request provably never left), `keyed` (safe
 * when the body carries the key the API drops a repeat by, else unsafe).
 */
type Repeat = Idempotency | { keyedBy: string };

/** One endpoint of the spec, as the client, `cnv api` and the emulator read it. */
export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  /** The spec's path, a `:name` segment for each path parameter. */
  path: string;
  repeat: Repeat;
  /** Not enabled by default (spec, Authentication 5): 403 export_not_enabled for an account without it. */
  gated: boolean;
  /** Page size bounds of a list or an export (`limit`; the API clamps values outside them), and its default where the spec says. */
  page?: { min: number; max: number; default?: number };
  /** Items one request carries (a batch endpoint). */
  items?: { min: number; max: number };
}

/**
 * Every endpoint of the spec (/work/shared/api-spec.md), once: src/api/*.ts send by it,
 * `cnv api` retries by it, and the emulator serves, gates and clamps by it. What the spec does
 * not show is left out (the page of List fields).
 */
export const ENDPOINTS = {
  upsertContact: { method: 'POST', path: '/v2/contacts', repeat: 'safe', gated: false },
  getContact: { method: 'GET', path: '/v2/contacts', repeat: 'safe', gated: true },
  trackEvent: { method: 'POST', path: '/v2/events', repeat: { keyedBy: 'clientEventId' }, gated: false },
  triggerWorkflow: { method: 'POST', path: '/v2/workflows/:workflowId/trigger', repeat: 'unsafe', gated: false },
  addToAudience: { method: 'POST', path: '/v2/audiences/:audienceId/contacts', repeat: 'safe', gated: false },
  removeFromAudience: { method: 'DELETE', path: '/v2/audiences/:audienceId/contacts', repeat: 'safe', gated: false },
  batchAddToAudience: { method: 'POST', path: '/v2/audiences/:audienceId/contacts/batch', repeat: 'safe', gated: true, items: { min: 1, max: 1000 } },
  listCampaigns: { method: 'GET', path: '/v2/campaigns', repeat: 'safe', gated: false, page: { min: 1, max: 100 } },
  getCampaign: { method: 'GET', path: '/v2/campaigns/:campaignId', repeat: 'safe', gated: false },
  addToCampaign: { method: 'POST', path: '/v2/campaigns/:campaignId/contacts', repeat: 'safe', gated: false },
  batchAddToCampaign: { method: 'POST', path: '/v2/campaigns/:campaignId/contacts/batch', repeat: 'safe', gated: true, items: { min: 1, max: 1000 } },
  getForm: { method: 'GET', path: '/v2/forms/:formId', repeat: 'safe', gated: false },
  createField: { method: 'POST', path: '/v2/fields', repeat: 'unsafe', gated: true },
  // The default and maximum of List fields' limit: not shown (cnv sends --limit as given; the emulator chooses its own).
  listFields: { method: 'GET', path: '/v2/fields', repeat: 'safe', gated: false },
  createRelationship: { method: 'POST', path: '/v2/fields/relationships', repeat: 'unsafe', gated: false },
  upsertRecords: { method: 'POST', path: '/v2/custom-objects/:customObjectId/records/batch', repeat: 'safe', gated: false, items: { min: 1, max: 200 } },
  exportCustomEvents: { method: 'POST', path: '/v2/exports/custom-events', repeat: 'safe', gated: true, page: { min: 1, max: 1000, default: 1000 } },
  exportEmailEvents: { method: 'POST', path: '/v2/exports/email-events', repeat: 'safe', gated: true, page: { min: 1, max: 5000, default: 1000 } },
  exportContacts: { method: 'POST', path: '/v2/exports/contacts', repeat: 'safe', gated: true, page: { min: 1, max: 5000, default: 1000 } },
} as const satisfies Record<string, Endpoint>;

/** The path of an endpoint with its parameters filled in (each encoded as one path segment). */
export function pathOf(endpoint: Pick<Endpoint, 'path'>, params: Record<string, string> = {}): string {
  return endpoint.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${endpoint.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** The endpoint a method and a path (without query) name, matching `:name` segments; undefined for a path the spec does not name. */
export function endpointOf(method: string, path: string): Endpoint | undefined {
  const segments = path.split('/');
  return Object.values(ENDPOINTS).find((e: Endpoint) => {
    if (e.method !== method) return false;
    const pattern = e.path.split('/');
    return pattern.length === segments.length && pattern.every((p, i) => (p.startsWith(':') ? segments[i] !== '' : p === segments[i]));
  });
}

/** How a request to an endpoint may be retried, given its body (a keyed repeat is safe only with its key). */
export function idempotencyOf(endpoint: Pick<Endpoint, 'repeat'>, body?: unknown): Idempotency {
  const { repeat } = endpoint;
  if (typeof repeat === 'string') return repeat;
  const key = (body as Record<string, unknown> | null | undefined)?.[repeat.keyedBy];
  return typeof key === 'string' && key !== '' ? 'safe' : 'unsafe';
}
