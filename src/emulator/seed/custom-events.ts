import type { CustomEvent } from '../model.js';
import { SEED_EPOCH_MS, iso, type SeedContext } from './seed-context.js';
import { FIXTURE_EVENTS } from './fixtures.js';
import { EVENT_NAMES, PAGES } from './names.js';

const GENERATED = { acme: 1500, basic: 5 } as Record<string, number>;
const SPAN_MS = 90 * 86_400_000;

/** Seeds fixture events (acme only) then generated ones, stored in occurredAt order. */
export function seedCustomEvents(ctx: SeedContext): void {
  const { business, rng } = ctx;
  if (business.id === 'acme') {
    for (const fx of Object.values(FIXTURE_EVENTS)) {
      business.addCustomEvent({ ...fx, source: 'PUBLIC_API', data: structuredClone(fx.data) });
    }
  }
  const contacts = business.contacts.stored().filter((c) => c.createdAt >= iso(SEED_EPOCH_MS));
  const n = contacts.length > 0 ? (GENERATED[business.id] ?? 0) : 0;
  const events: CustomEvent[] = [];
  for (let i = 1; i <= n; i++) {
    const contact = rng.pick(contacts);
    const from = Date.parse(contact.createdAt);
    const occurredMs = from + rng.int(0, Math.max(0, SEED_EPOCH_MS + SPAN_MS - from));
    const eventName = rng.pick(EVENT_NAMES);
    events.push({
      eventId: rng.uuid(),
      contactId: contact.id,
      occurredAt: iso(occurredMs),
      // Ingestion lags occurrence by up to a few seconds, with millisecond precision.
      createdAt: iso(occurredMs + rng.int(5, 5000)),
      eventName,
      source: 'PUBLIC_API',
      clientEventId: `seed-${business.id}-${i}`,
      data: eventData(eventName, rng),
    });
  }
  events.sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : 0));
  for (const e of events) business.addCustomEvent(e);
}

function eventData(name: string, rng: SeedContext['rng']): Record<string, unknown> {
  switch (name) {
    case 'page_viewed':
      return { page: rng.pick(PAGES) };
    case 'purchase':
      return { amount: rng.int(500, 50000) / 100, currency: rng.pick(['EUR', 'USD', 'GBP']), items: rng.int(1, 5) };
    case 'trial_started':
      return { plan: rng.pick(['starter', 'pro', 'enterprise']) };
    case 'feature_used':
      return { feature: rng.pick(['exports', 'forms', 'workflows']), count: rng.int(1, 20) };
    default:
      return {};
  }
}
