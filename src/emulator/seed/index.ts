import type { EmulatorStore } from '../store.js';
import type { Seeder } from './seed-context.js';
import { seedAudiences } from './audiences.js';
import { seedCampaigns } from './campaigns.js';
import { seedContacts } from './contacts.js';
import { seedCustomEvents } from './custom-events.js';
import { seedCustomObjects } from './custom-objects.js';
import { seedEmailEvents } from './email-events.js';
import { seedFields } from './fields.js';
import { seedForms } from './forms.js';
import { rngFor } from './prng.js';
import { seedWorkflows } from './workflows.js';

/** What to seed: demo data, nothing, or demo data generated from a numeric PRNG seed. */
export type SeedSpec = 'demo' | 'none' | number;

/** The numeric seed behind 'demo'. */
const DEMO_SEED = 1;

/**
 * Per-resource seeders, run in this order for every business. Add one line per resource
 * (audiences, campaigns, forms, ...); order matters only where a seeder reads another's data.
 */
const SEEDERS: Seeder[] = [
  { name: 'fields', run: seedFields },
  { name: 'contacts', run: seedContacts },
  { name: 'custom-events', run: seedCustomEvents },
  { name: 'email-events', run: seedEmailEvents },
  { name: 'audiences', run: seedAudiences },
  { name: 'campaigns', run: seedCampaigns },
  { name: 'workflows', run: seedWorkflows },
  { name: 'forms', run: seedForms },
  { name: 'custom-objects', run: seedCustomObjects },
];

/** Fills an (empty) store. Same seed, same data: each seeder has its own PRNG stream. */
export function seedStore(store: EmulatorStore, spec: SeedSpec): void {
  if (spec === 'none') return;
  const seed = spec === 'demo' ? DEMO_SEED : spec;
  for (const businessId of store.businessIds()) {
    const business = store.business(businessId);
    for (const seeder of SEEDERS) {
      seeder.run({ business, seed, rng: rngFor(seed, `${seeder.name}:${businessId}`) });
    }
  }
}
