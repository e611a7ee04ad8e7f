import type { Campaign } from '../model.js';
import { SEED_EPOCH_MS, iso, type SeedContext } from './seed-context.js';
import {
  FIXTURE_BASIC_CAMPAIGNS,
  FIXTURE_CAMPAIGN_TYPES,
  FIXTURE_CAMPAIGNS,
  type FixtureCampaign,
  type FixtureCampaignType,
} from './fixtures.js';

/** Generated campaigns per business: enough for several pages at the default page size. */
const GENERATED = { acme: 120 } as Record<string, number>;
const TOPICS = [
  'Q1 outreach',
  'Product tour',
  'Customer day',
  'Partner summit',
  'Roadshow',
  'Office hours',
  'Launch week',
];

/** Seeds the campaign types, the fixture campaigns, then generated ones (about 5% archived). */
export function seedCampaigns(ctx: SeedContext): void {
  const { business, rng } = ctx;
  for (const t of Object.values(FIXTURE_CAMPAIGN_TYPES)) {
    business.campaignTypes.set(t.id, {
      id: t.id,
      name: t.name,
      systemType: t.systemType,
      statuses: t.statuses.map((s) => ({ ...s })),
    });
  }
  const fixtures: FixtureCampaign[] = Object.values(
    business.id === 'acme' ? FIXTURE_CAMPAIGNS : FIXTURE_BASIC_CAMPAIGNS,
  );
  for (const fx of fixtures) business.campaigns.set(fx.id, fromFixture(fx));

  const types: FixtureCampaignType[] = Object.values(FIXTURE_CAMPAIGN_TYPES);
  const contacts = business.contacts.stored().filter((c) => c.createdAt >= iso(SEED_EPOCH_MS));
  const count = contacts.length > 0 ? (GENERATED[business.id] ?? 0) : 0;
  for (let i = 1; i <= count; i++) {
    const type = rng.pick(types);
    const at = iso(SEED_EPOCH_MS + i * 7_200_000);
    const members = new Map<string, string | null>();
    const size = rng.int(0, 25);
    for (let m = 0; m < size; m++) members.set(rng.pick(contacts).id, rng.pick(type.statuses).id);
    const campaign: Campaign = {
      id: rng.uuid(),
      name: `${rng.pick(TOPICS)} #${i}`,
      typeId: type.id,
      sfdcCampaignId: rng.chance(0.3) ? `701${rng.alnum(15)}` : null,
      description: `Generated campaign ${i} (${type.name}).`,
      archived: rng.chance(0.05),
      members,
      createdAt: at,
      updatedAt: at,
    };
    business.campaigns.set(campaign.id, campaign);
  }
}

function fromFixture(fx: FixtureCampaign): Campaign {
  const types: FixtureCampaignType[] = Object.values(FIXTURE_CAMPAIGN_TYPES);
  const firstStatus = types.find((t) => t.id === fx.typeId)?.statuses[0].id ?? null;
  return {
    id: fx.id,
    name: fx.name,
    typeId: fx.typeId,
    sfdcCampaignId: fx.sfdcCampaignId,
    description: fx.description,
    archived: fx.archived,
    members: new Map(fx.memberIds.map((id) => [id, firstStatus])),
    createdAt: fx.createdAt,
    updatedAt: fx.createdAt,
  };
}
