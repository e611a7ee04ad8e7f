import { SEED_EPOCH_MS, iso, type SeedContext } from './seed-context.js';
import { FIXTURE_AUDIENCES, FIXTURE_BASIC_AUDIENCES, type FixtureAudience } from './fixtures.js';

const GENERATED = { acme: 4 } as Record<string, number>;
const AUDIENCE_NAMES = ['Trial users', 'Churn risk', 'Event attendees', 'Product updates', 'Beta testers', 'Partners'];

/** Seeds the fixture audiences, then a few generated ones with random generated members. */
export function seedAudiences(ctx: SeedContext): void {
  const { business, rng } = ctx;
  const fixtures: FixtureAudience[] = Object.values(
    business.id === 'acme' ? FIXTURE_AUDIENCES : FIXTURE_BASIC_AUDIENCES,
  );
  for (const fx of fixtures) {
    business.audiences.set(fx.id, {
      id: fx.id,
      name: fx.name,
      memberIds: new Set(fx.memberIds),
      createdAt: fx.createdAt,
      updatedAt: fx.createdAt,
    });
  }
  const contacts = business.contacts.stored().filter((c) => c.createdAt >= iso(SEED_EPOCH_MS));
  const count = contacts.length > 0 ? (GENERATED[business.id] ?? 0) : 0;
  for (let i = 1; i <= count; i++) {
    const at = iso(SEED_EPOCH_MS + i * 3_600_000);
    const members = new Set<string>();
    const size = rng.int(10, 80);
    while (members.size < size) members.add(rng.pick(contacts).id);
    const id = rng.uuid();
    business.audiences.set(id, {
      id,
      name: AUDIENCE_NAMES[(i - 1) % AUDIENCE_NAMES.length],
      memberIds: members,
      createdAt: at,
      updatedAt: at,
    });
  }
}
