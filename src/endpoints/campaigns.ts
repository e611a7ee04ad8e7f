import { z } from 'zod';
import { once } from '../lib/once.js';

const campaignSchema = once(() => {
  const status = z.looseObject({ id: z.string(), name: z.string(), isSuccess: z.boolean() });
  const campaignType = z.looseObject({
    id: z.string(),
    name: z.string(),
    // Only CUSTOM is shown; other values pass through as they come.
    systemType: z.string(),
    statuses: z.array(status).optional(),
  });
  return z.looseObject({
    id: z.string(),
    name: z.string(),
    type: campaignType,
    sfdcCampaignId: z.string().nullable().optional(),
    memberCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    description: z.string().nullable().optional(),
  });
});

/** `data.campaign` of GET /v2/campaigns/{campaignId}: with the type's statuses (progression order) and the description. */
export const campaignAnswer = campaignSchema;

/** `data.campaigns` of GET /v2/campaigns. */
export const campaignListAnswer = once(() => z.array(campaignSchema()));
