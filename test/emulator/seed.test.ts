import { describe, expect, it } from 'vitest';
import { BUSINESSES } from '../../src/emulator/keys.js';
import { SYSTEM_STATUSES } from '../../src/emulator/model.js';
import { DEMO_FIELDS } from '../../src/emulator/seed/fields.js';
import { FIXTURE_BASIC_CONTACTS, FIXTURE_CONTACTS, FIXTURE_EVENTS } from '../../src/emulator/seed/fixtures.js';
import { seedStore, type SeedSpec } from '../../src/emulator/seed/index.js';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { EmulatorStore } from '../../src/emulator/store.js';

const build = (spec: SeedSpec) => new EmulatorStore(BUSINESSES, (s) => seedStore(s, spec));
const snapshot = (store: EmulatorStore) =>
  store.businessIds().map((id) => {
    const b = store.business(id);
    return {
      contacts: b.contacts.stored(),
      companies: [...b.companies.values()],
      fields: b.fields.list(),
      events: b.customEvents,
    };
  });

describe('seed', () => {
  it('mulberry32 is deterministic', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, mulberry32(8))).not.toEqual(seqA);
  });

  it('same seed gives the same data; another seed gives other data', () => {
    expect(snapshot(build(123))).toEqual(snapshot(build(123)));
    expect(snapshot(build('demo'))).toEqual(snapshot(build('demo')));
    const other = snapshot(build(124))[0].contacts.map((c) => c.email);
    expect(snapshot(build(123))[0].contacts.map((c) => c.email)).not.toEqual(other);
  });

  it('reset re-seeds to the same data', () => {
    const store = build('demo');
    const before = snapshot(store);
    store.business('acme').contacts.delete(FIXTURE_CONTACTS.ada.id);
    store.reset();
    expect(snapshot(store)).toEqual(before);
  });

  it("'none' leaves every business empty", () => {
    const store = build('none');
    for (const id of store.businessIds()) {
      expect(store.business(id).contacts.size).toBe(0);
      expect(store.business(id).fields.list()).toEqual([]);
    }
  });

  it('demo data for acme: ~2,000 contacts with the advertised variety', () => {
    const acme = build('demo').business('acme');
    const contacts = acme.contacts.stored();
    expect(contacts.length).toBe(2000 + Object.keys(FIXTURE_CONTACTS).length);
    const statuses = new Set(contacts.map((c) => c.subscriptionStatus));
    for (const s of ['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS', ...SYSTEM_STATUSES]) expect(statuses).toContain(s);
    expect(contacts.filter((c) => c.userId !== null).length).toBeGreaterThan(500);
    expect(contacts.some((c) => /^[a-z]+\.[a-z-]+\.\d+@example\.com$/.test(c.email))).toBe(true);
    const byEmail = new Map<string, number>();
    for (const c of contacts) byEmail.set(c.email, (byEmail.get(c.email) ?? 0) + 1);
    expect([...byEmail.values()].filter((n) => n > 1).length).toBeGreaterThan(5);
    const updated = contacts.map((c) => c.updatedAt).sort();
    expect(new Set(updated).size).toBe(updated.length);
    expect(updated[updated.length - 1] < new Date().toISOString()).toBe(true);
    expect(acme.customEvents.length).toBeGreaterThan(1000);
  });

  it('defines fields of every dataType and object type, with read-only ones', () => {
    const fields = build('demo').business('acme').fields;
    const contactTypes = new Set(fields.list('CONTACT').map((f) => f.dataType));
    expect([...contactTypes].sort()).toEqual(['BOOLEAN', 'DATE', 'DATETIME', 'NUMBER', 'STRING']);
    expect(
      fields
        .list('CONTACT')
        .filter((f) => f.readOnly)
        .map((f) => f.key),
    ).toEqual(['leadScore', 'createdBy']);
    expect(fields.list('COMPANY').filter((f) => f.readOnly)).toHaveLength(1);
    expect(fields.list('OPPORTUNITY').length).toBeGreaterThan(0);
    expect(fields.list('CAMPAIGN_MEMBER').length).toBeGreaterThan(0);
    // Custom-object fields and relationship pairs come from the custom-objects seeder.
    expect(fields.list().filter((f) => !f.customObjectId && !f.relationship).length).toBe(DEMO_FIELDS.length);
  });

  it('includes the fixtures, independent of the numeric seed', () => {
    for (const spec of ['demo', 99] as const) {
      const store = build(spec);
      const acme = store.business('acme');
      const ada = acme.contacts.get(FIXTURE_CONTACTS.ada.id);
      expect(ada).toMatchObject({ email: 'ada@example.com', userId: 'user-ada', subscriptionStatus: 'SUBSCRIBED' });
      expect(acme.contacts.findByEmail('shared@example.com')?.id).toBe(FIXTURE_CONTACTS.sharedNewer.id);
      expect(acme.contacts.allByEmail('shared@example.com')).toHaveLength(2);
      expect(acme.contacts.findByEmail('bounced@example.com')?.subscriptionStatus).toBe('BOUNCED');
      expect(acme.contacts.findByUserId('user-grace')?.email).toBe('grace@example.com');
      expect(acme.customEventsByClientId.get(FIXTURE_EVENTS.adaSignedUp.clientEventId)?.eventId).toBe(
        FIXTURE_EVENTS.adaSignedUp.eventId,
      );
      expect(acme.contacts.get(FIXTURE_EVENTS.orphan.contactId)).toBeUndefined();
      const basic = store.business('basic');
      expect(basic.contacts.get(FIXTURE_BASIC_CONTACTS.basicUser.id)?.email).toBe('basic.user@example.com');
      expect(basic.contacts.size).toBeLessThan(10);
    }
  });
});
