import { decodeCursor, encodeCursor } from '../cursor.js';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { addEach, lookupById, readBatchContacts, resolveContact } from '../membership.js';
import type { Campaign, Contact } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { queryParam } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/**
 * Page size of GET /v2/campaigns when no limit is sent (the spec does not show it: the emulator's
 * choice); values are clamped to the table's 1..100.
 */
export const DEFAULT_CAMPAIGN_LIMIT = 20;
const CURSOR_KIND = 'campaigns';

/** Custom campaigns: list, read, add one contact, batch add (gated). Archived ones are invisible. */
export function campaignRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.listCampaigns, listCampaigns);
  serve(router, ENDPOINTS.getCampaign, getCampaign);
  serve(router, ENDPOINTS.addToCampaign, addContact);
  serve(router, ENDPOINTS.batchAddToCampaign, batchAdd);
}

function activeCampaign(store: BusinessStore, id: string): Campaign {
  const campaign = lookupById(store.campaigns, id);
  if (!campaign || campaign.archived) throw new EmulatorError(404, 'campaign_not_found', `No campaign ${id}`);
  return campaign;
}

/** The list shape: no statuses, no description. */
function listView(store: BusinessStore, c: Campaign): Record<string, unknown> {
  const type = store.campaignTypes.get(c.typeId);
  return {
    id: c.id,
    name: c.name,
    type: { id: c.typeId, name: type?.name ?? '', systemType: type?.systemType ?? 'CUSTOM' },
    sfdcCampaignId: c.sfdcCampaignId,
    memberCount: c.members.size,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

// Ordered by (createdAt, id); the cursor holds the last key served, so archiving mid-walk skips nothing.
function listCampaigns({ query, store }: ApiContext): RouteResult {
  const limit = readLimit(queryParam(query, 'limit'));
  const cursor = queryParam(query, 'cursor');
  const after =
    cursor === undefined
      ? undefined
      : decodeCursor<{
          createdAt: string;
          id: string;
        }>(cursor, CURSOR_KIND, store.cursorSecret);
  const sorted = [...store.campaigns.values()]
    .filter((c) => !c.archived)
    .sort((a, b) => compareKey(a, b.createdAt, b.id));
  const rest = after ? sorted.filter((c) => compareKey(c, after.createdAt, after.id) > 0) : sorted;
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor =
    rest.length > limit && last
      ? encodeCursor({ createdAt: last.createdAt, id: last.id }, CURSOR_KIND, store.cursorSecret)
      : null;
  return { body: { data: { campaigns: page.map((c) => listView(store, c)) }, pagination: { nextCursor } } };
}

function getCampaign({ params, store }: ApiContext): RouteResult {
  const c = activeCampaign(store, params.campaignId);
  const view = listView(store, c);
  const statuses = store.campaignTypes.get(c.typeId)?.statuses ?? [];
  const campaign = {
    ...view,
    type: { ...(view.type as object), statuses: statuses.map((s) => ({ ...s })) },
    description: c.description,
  };
  return { body: { data: { campaign } } };
}

// `added: false` means the contact was a member already; new members get the type's first status.
function addContact({ params, body, store }: ApiContext): RouteResult {
  const campaign = activeCampaign(store, params.campaignId);
  const contact = resolveContact(store, body);
  const added = addMember(store, campaign, contact);
  return { body: { data: { added, cnvContactId: contact.id } } };
}

function batchAdd({ params, body, store }: ApiContext): RouteResult {
  const campaign = activeCampaign(store, params.campaignId);
  const results = addEach(store, readBatchContacts(body), (contact) => addMember(store, campaign, contact));
  return { body: { data: { results } } };
}

function addMember(store: BusinessStore, campaign: Campaign, contact: Contact): boolean {
  if (campaign.members.has(contact.id)) return false;
  campaign.members.set(contact.id, store.campaignTypes.get(campaign.typeId)?.statuses[0]?.id ?? null);
  return true;
}

function readLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_CAMPAIGN_LIMIT;
  if (!/^-?\d+$/.test(raw)) throw invalidRequest('limit must be an integer');
  const { min, max } = ENDPOINTS.listCampaigns.page;
  return Math.min(max, Math.max(min, Number(raw)));
}

function compareKey(c: Campaign, createdAt: string, id: string): number {
  if (c.createdAt !== createdAt) return c.createdAt < createdAt ? -1 : 1;
  return c.id < id ? -1 : c.id > id ? 1 : 0;
}
