import type { EmailEvent, EmailEventType } from '../model.js';
import { SEED_EPOCH_MS, iso, type SeedContext } from './seed-context.js';
import { FIXTURE_DELETED_CONTACT_ID } from './fixtures.js';

const GENERATED = { acme: 4000, basic: 5 } as Record<string, number>;
const SPAN_MS = 90 * 86_400_000;
const BLASTS = 24;

const TYPE_WEIGHTS: ReadonlyArray<readonly [EmailEventType, number]> = [
  ['EMAIL_SEND', 30],
  ['EMAIL_DELIVERY', 28],
  ['EMAIL_OPEN', 18],
  ['EMAIL_CLICK', 9],
  ['EMAIL_BOUNCE', 3],
  ['EMAIL_SOFT_BOUNCE', 3],
  ['EMAIL_COMPLAINT', 2],
  ['EMAIL_UNSUBSCRIBE_ALL', 3],
  ['EMAIL_TOPIC_UNSUBSCRIBE', 4],
];

/** A deterministic UUID from a tag (8 hex digits) and a number. */
export function numberedUuid(tag: string, n: number): string {
  return `${tag}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The members that depend on the type (link, topics, bounce), derived from a number. */
export function emailEventExtras(
  type: EmailEventType,
  n: number,
): Pick<EmailEvent, 'link' | 'topicIds' | 'bounceType' | 'errorMessage'> {
  const bounce = type === 'EMAIL_BOUNCE' || type === 'EMAIL_SOFT_BOUNCE';
  return {
    link: type === 'EMAIL_CLICK' ? `https://example.com/l/${n % 97}?utm_source=email` : null,
    topicIds: type === 'EMAIL_TOPIC_UNSUBSCRIBE' ? [numberedUuid('70000000', n % 5)] : null,
    bounceType: type === 'EMAIL_BOUNCE' ? 'HARD' : type === 'EMAIL_SOFT_BOUNCE' ? 'SOFT' : null,
    errorMessage: bounce ? (n % 2 ? '550 5.1.1 mailbox unavailable' : '452 4.2.2 mailbox full') : null,
  };
}

/** A blast (email) of the demo data: its ids, and a name that is sometimes unresolved (null). */
export function blast(n: number): Pick<EmailEvent, 'sourceType' | 'sourceId' | 'emailId' | 'emailName'> {
  const b = n % BLASTS;
  return {
    sourceType: 'BLAST',
    sourceId: numberedUuid('50000000', b),
    emailId: numberedUuid('60000000', b),
    // emailName is resolved "best effort": one blast in eight has lost its name.
    emailName: b % 8 === 7 ? null : `Newsletter #${b + 1}`,
  };
}

/** Seeds email engagement events of every type over the demo period, in occurredAt order. */
export function seedEmailEvents(ctx: SeedContext): void {
  const { business, rng } = ctx;
  const contacts = business.contacts.stored();
  const n = contacts.length > 0 ? (GENERATED[business.id] ?? 0) : 0;
  const events: EmailEvent[] = [];
  for (let i = 0; i < n; i++) {
    const type = rng.weighted(TYPE_WEIGHTS);
    // A few belong to a contact deleted since; the export still returns them.
    const contactId = business.id === 'acme' && rng.chance(0.02) ? FIXTURE_DELETED_CONTACT_ID : rng.pick(contacts).id;
    const b = rng.int(0, BLASTS - 1);
    events.push({
      eventId: rng.uuid(),
      contactId,
      occurredAt: iso(SEED_EPOCH_MS + rng.int(0, SPAN_MS)),
      eventType: type,
      ...blast(b),
      sentEmailId: rng.uuid(),
      isBot: type === 'EMAIL_OPEN' || type === 'EMAIL_CLICK' ? rng.chance(0.05) : false,
      ...emailEventExtras(type, rng.int(0, 1000)),
    });
  }
  events.sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : 0));
  business.emailEvents.push(...events);
}
