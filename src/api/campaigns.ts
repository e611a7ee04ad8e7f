import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import type { HttpClient } from '../http/client.js';
import { addContactAt, batchAddContactsAt } from './memberships.js';

const statusSchema = z.looseObject({ id: z.string(), name: z.string(), isSuccess: z.boolean() });

const campaignTypeSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  // Only CUSTOM is shown; other values pass through as they come.
  systemType: z.string(),
  statuses: z.array(statusSchema).optional(),
});

export const campaignSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: campaignTypeSchema,
  sfdcCampaignId: z.string().nullable().optional(),
  memberCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  description: z.string().nullable().optional(),
});
export type Campaign = z.output<typeof campaignSchema>;

const campaignPath = (id: string) => `/v2/campaigns/${encodeURIComponent(id)}`;

/** GET /v2/campaigns: one page. The server clamps limit to 1..100. */
export async function listCampaigns(http: HttpClient, page: { limit?: number; cursor?: string }, signal?: AbortSignal) {
  const res = await http.request({
    method: 'GET',
    path: '/v2/campaigns',
    query: { limit: page.limit, cursor: page.cursor },
    data: z.looseObject({ campaigns: z.array(campaignSchema) }),
    paginated: true,
    idempotency: 'safe',
    signal,
  });
  return { campaigns: res.data.campaigns, nextCursor: res.nextCursor ?? null };
}

/** GET /v2/campaigns/{id}: with the type's statuses (progression order) and the description. */
export async function getCampaign(http: HttpClient, campaignId: string, signal?: AbortSignal) {
  const res = await http.request({
    method: 'GET', path: campaignPath(campaignId), data: z.looseObject({ campaign: campaignSchema }), idempotency: 'safe', signal,
  });
  return res.data.campaign;
}

/** The path of a campaign's members (the batch add appends /batch). */
export const campaignContactsPath = (campaignId: string) => `${campaignPath(campaignId)}/contacts`;

/** POST /v2/campaigns/{id}/contacts. */
export function addToCampaign(http: HttpClient, campaignId: string, contact: ContactIdentifier, signal?: AbortSignal) {
  return addContactAt(http, campaignContactsPath(campaignId), contact, signal);
}

/** POST /v2/campaigns/{id}/contacts/batch (gated). */
export function batchAddToCampaign(http: HttpClient, campaignId: string, contacts: ContactIdentifier[], signal?: AbortSignal) {
  return batchAddContactsAt(http, campaignContactsPath(campaignId), contacts, signal);
}
