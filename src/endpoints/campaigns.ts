import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf } from './endpoints.js';
import { addContactAt, batchAddContactsAt, batchAddRequest } from './memberships.js';

const statusSchema = z.looseObject({ id: z.string(), name: z.string(), isSuccess: z.boolean() });

const campaignTypeSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  // Only CUSTOM is shown; other values pass through as they come.
  systemType: z.string(),
  statuses: z.array(statusSchema).optional(),
});

const campaignSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: campaignTypeSchema,
  sfdcCampaignId: z.string().nullable().optional(),
  memberCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  description: z.string().nullable().optional(),
});

/** GET /v2/campaigns: one page. The server clamps limit to 1..100. */
export async function listCampaigns(http: HttpClient, page: { limit?: number; cursor?: string }, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.listCampaigns.method,
    path: ENDPOINTS.listCampaigns.path,
    query: { limit: page.limit, cursor: page.cursor },
    data: z.looseObject({ campaigns: z.array(campaignSchema) }),
    paginated: true,
    idempotency: idempotencyOf(ENDPOINTS.listCampaigns),
    signal,
  });
  return { campaigns: res.data.campaigns, nextCursor: res.nextCursor ?? null };
}

/** GET /v2/campaigns/{id}: with the type's statuses (progression order) and the description. */
export async function getCampaign(http: HttpClient, campaignId: string, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.getCampaign.method, path: pathOf(ENDPOINTS.getCampaign, { campaignId }), data: z.looseObject({ campaign: campaignSchema }), idempotency: idempotencyOf(ENDPOINTS.getCampaign), signal,
  });
  return res.data.campaign;
}


/** POST /v2/campaigns/{id}/contacts. */
export function addToCampaign(http: HttpClient, campaignId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  return addContactAt(http, ENDPOINTS.addToCampaign, { campaignId }, contact, signal);
}

/** The batch add request (what a --dry-run shows and batchAddToCampaign sends). */
export function batchAddToCampaignRequest(campaignId: string, contacts: ContactIdentifier[]) {
  return batchAddRequest(ENDPOINTS.batchAddToCampaign, { campaignId }, contacts);
}

/** POST /v2/campaigns/{id}/contacts/batch (gated). */
export function batchAddToCampaign(http: HttpClient, campaignId: string, contacts: ContactIdentifier[], signal?: AbortSignal) {
  return batchAddContactsAt(http, ENDPOINTS.batchAddToCampaign, { campaignId }, contacts, signal);
}
