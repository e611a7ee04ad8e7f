import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  FIXTURE_AUDIENCES,
  FIXTURE_CAMPAIGNS,
  FIXTURE_CONTACTS as FX,
  FIXTURE_CUSTOM_OBJECT,
} from '../../src/emulator/seed/fixtures.js';
import { numberedUuid } from '../../src/emulator/seed/email-events.js';
import { admin, call, expectError } from './helpers.js';

// The bulk contacts of --seed-contacts are real contacts: found, written, counted, exported
// with their changes, and stored only once written.
const BULK = 12_000;
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true, rateLimit: 0, seedContacts: BULK });
});
afterAll(async () => {
  await emu.close();
});
// Each test starts from the seeded data, every bulk contact as computed.
beforeEach(async () => {
  expect((await admin(emu, 'POST', '/_emulator/reset')).status).toBe(200);
});

type Row = Record<string, any>;
const bulkId = (i: number) => numberedUuid('f0000000', i);
const upsert = (body: unknown) => call(emu, 'POST', '/v2/contacts', { body });
const getBy = (q: string) => call(emu, 'GET', `/v2/contacts?${q}`);
const stored = () => emu.store.business('acme').contacts.stored().length;
const exportPage = (body: Record<string, unknown>) => call(emu, 'POST', '/v2/exports/contacts', { body });

/** Every page from `cursor` (limit 5000); the rows and the last non-null cursor. */
async function walk(cursor = '', limit = 5000): Promise<{ rows: Row[]; lastCursor: string }> {
  const rows: Row[] = [];
  let lastCursor = cursor;
  for (;;) {
    const res = await exportPage({ limit, cursor: lastCursor });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    rows.push(...res.json.data.contacts);
    if (res.json.pagination.nextCursor === null) return { rows, lastCursor };
    lastCursor = res.json.pagination.nextCursor;
  }
}
const positionsAscend = (rows: Row[]) =>
  rows.every((r, k) => k === 0 || `${rows[k - 1].updatedAt}|${rows[k - 1].id}` < `${r.updatedAt}|${r.id}`);

describe('bulk contacts: Get contact', () => {
  it('finds bulk contact i by cnvContactId and by email (any case), as the export shows it, without storing it', async () => {
    const before = stored();
    const byId = await getBy(`cnvContactId=${bulkId(42)}`);
    expect(byId.status).toBe(200);
    expect(byId.json.data.contact).toEqual({
      cnvContactId: bulkId(42),
      email: 'bulk.42@example.com',
      userId: 'bulk-user-42',
      subscriptionStatus: expect.any(String),
      fields: { firstName: expect.any(String), lastName: expect.any(String), city: expect.any(String), score: 42 },
      createdAt: '2024-06-01T00:00:00.420Z',
      updatedAt: '2024-06-01T00:00:00.420Z',
    });
    expect((await getBy('email=BULK.42%40Example.com')).json.data.contact).toEqual(byId.json.data.contact);
    expect((await getBy(`email=bulk.${BULK - 1}%40example.com`)).json.data.contact.cnvContactId).toBe(bulkId(BULK - 1));
    const row = (await walk()).rows.find((r) => r.id === bulkId(42))!;
    expect(row).toMatchObject({
      email: 'bulk.42@example.com',
      updatedAt: byId.json.data.contact.updatedAt,
      fields: { City: byId.json.data.contact.fields.city, Score: 42 },
    });
    expect(stored()).toBe(before);
  });

  it('only the exact spellings of existing bulk contacts match: 404 beyond the count, for a leading zero or an upper-case id', async () => {
    for (const q of [
      `email=bulk.${BULK}%40example.com`,
      'email=bulk.042%40example.com',
      `cnvContactId=${bulkId(BULK)}`,
      `cnvContactId=${bulkId(42).toUpperCase()}`,
    ]) {
      expectError(await getBy(q), 404, 'contact_not_found');
    }
  });
});

describe('bulk contacts: upserts', () => {
  it('an upsert by email updates the bulk contact (no new contact), which Get then shows with a new updatedAt', async () => {
    const before = (await getBy('email=bulk.7%40example.com')).json.data.contact;
    const res = await upsert({
      email: 'bulk.7@example.com',
      subscriptionStatus: 'UNSUBSCRIBED',
      fields: { city: 'Zurich', vip: true },
    });
    expect(res.json.data).toEqual({ cnvContactId: bulkId(7), contactCreated: false });
    const after = (await getBy(`cnvContactId=${bulkId(7)}`)).json.data.contact;
    expect(after).toMatchObject({
      email: 'bulk.7@example.com',
      subscriptionStatus: 'UNSUBSCRIBED',
      fields: { ...before.fields, city: 'Zurich', vip: true },
      createdAt: before.createdAt,
    });
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect((await getBy('email=bulk.7%40example.com')).json.data.contact).toEqual(after);
  });

  it('an upsert by cnvContactId changes the email: the old address finds nothing, the new one finds it', async () => {
    const res = await upsert({ cnvContactId: bulkId(9), email: 'moved.nine@example.com', fields: { score: 1000 } });
    expect(res.json.data).toEqual({ cnvContactId: bulkId(9), contactCreated: false });
    expectError(await getBy('email=bulk.9%40example.com'), 404, 'contact_not_found');
    expect((await getBy('email=moved.nine%40example.com')).json.data.contact).toMatchObject({
      cnvContactId: bulkId(9),
      userId: 'bulk-user-9',
      fields: { score: 1000 },
    });
    // updateOnly by the old address finds nothing either.
    expectError(await upsert({ email: 'bulk.9@example.com', updateOnly: true }), 404, 'contact_not_found');
  });

  it('a write that changes nothing keeps the contact computed: same updatedAt, nothing stored', async () => {
    const before = (await getBy(`cnvContactId=${bulkId(11)}`)).json.data.contact;
    const count = stored();
    const res = await upsert({ email: 'bulk.11@example.com', fields: { city: before.fields.city } });
    expect(res.json.data).toEqual({ cnvContactId: bulkId(11), contactCreated: false });
    expect((await getBy(`cnvContactId=${bulkId(11)}`)).json.data.contact).toEqual(before);
    expect(stored()).toBe(count);
  });

  it('several contacts with one email: a lookup by email returns the most recently updated one', async () => {
    // Grace takes bulk 5's address: she is the newer of the two.
    await upsert({ cnvContactId: FX.grace.id, email: 'bulk.5@example.com' });
    expect((await getBy('email=bulk.5%40example.com')).json.data.contact.cnvContactId).toBe(FX.grace.id);
    const both = (await admin(emu, 'GET', '/_emulator/state/contacts?email=bulk.5%40example.com')).json;
    expect(both.map((c: Row) => c.id)).toEqual([FX.grace.id, bulkId(5)]);
    // An upsert by email updates that newest one; then bulk 5, written by its id, is the newest.
    expect((await upsert({ email: 'bulk.5@example.com', fields: { city: 'Grace City' } })).json.data.cnvContactId).toBe(
      FX.grace.id,
    );
    await upsert({ cnvContactId: bulkId(5), fields: { city: 'Bulk City' } });
    expect((await getBy('email=bulk.5%40example.com')).json.data.contact).toMatchObject({
      cnvContactId: bulkId(5),
      fields: { city: 'Bulk City' },
    });
    const events = await call(emu, 'POST', '/v2/events', {
      body: { event: 'page_viewed', email: 'bulk.5@example.com' },
    });
    expect(events.json.data.cnvContactId).toBe(bulkId(5));
  });

  it('a reset forgets the writes: the bulk contact is as computed again', async () => {
    const before = (await getBy(`cnvContactId=${bulkId(3)}`)).json.data.contact;
    await upsert({ cnvContactId: bulkId(3), email: 'three@example.com' });
    await admin(emu, 'POST', '/_emulator/reset');
    expect((await getBy('email=bulk.3%40example.com')).json.data.contact).toEqual(before);
  });
});

describe('bulk contacts: events, memberships, deletion', () => {
  it('an event is tracked against a bulk contact by email and by userId, and its export row names the contact', async () => {
    const count = stored();
    const byEmail = await call(emu, 'POST', '/v2/events', {
      body: { event: 'purchase', email: 'bulk.8@example.com', clientEventId: 'bulk-test-1' },
    });
    expect(byEmail.json.data.cnvContactId).toBe(bulkId(8));
    const byUser = await call(emu, 'POST', '/v2/events', {
      body: { event: 'purchase', userId: 'bulk-user-12', clientEventId: 'bulk-test-2' },
    });
    expect(byUser.json.data.cnvContactId).toBe(bulkId(12));
    // bulk 8 has no userId (only every third one has): that userId names nothing.
    expectError(
      await call(emu, 'POST', '/v2/events', { body: { event: 'purchase', userId: 'bulk-user-8' } }),
      404,
      'contact_not_found',
    );
    // The same email with another contact's userId conflicts, as for a stored contact.
    expectError(
      await call(emu, 'POST', '/v2/events', {
        body: { event: 'purchase', email: 'bulk.12@example.com', userId: 'user-ada' },
      }),
      400,
      'conflicting_identifier',
    );
    const page = await call(emu, 'POST', '/v2/exports/custom-events', {
      body: { occurredAt: { start: '2020-01-01T00:00:00Z' }, limit: 1000 },
    });
    const rows: Row[] = [];
    for (
      let res = page;
      ;
      res = await call(emu, 'POST', '/v2/exports/custom-events', {
        body: { cursor: res.json.pagination.nextCursor, limit: 1000 },
      })
    ) {
      rows.push(...res.json.data.events);
      if (res.json.pagination.nextCursor === null) break;
    }
    expect(rows.find((r) => r.clientEventId === 'bulk-test-2')).toMatchObject({
      contactId: bulkId(12),
      contactEmail: 'bulk.12@example.com',
      userId: 'bulk-user-12',
    });
    expect(stored()).toBe(count);
  });

  it('audience and campaign adds, single and batch, find bulk contacts by each identifier', async () => {
    const audience = FIXTURE_AUDIENCES.followUp.id;
    const one = await call(emu, 'POST', `/v2/audiences/${audience}/contacts`, {
      body: { email: 'bulk.20@example.com' },
    });
    expect(one.json.data).toEqual({ added: true, cnvContactId: bulkId(20) });
    const batch = await call(emu, 'POST', `/v2/audiences/${audience}/contacts/batch`, {
      body: {
        contacts: [
          { cnvContactId: bulkId(21) },
          { userId: 'bulk-user-24' },
          { email: 'bulk.20@example.com' },
          { email: `bulk.${BULK}@example.com` },
        ],
      },
    });
    expect(batch.json.data.results.map((r: Row) => r.cnvContactId ?? r.error)).toEqual([
      bulkId(21),
      bulkId(24),
      bulkId(20),
      'contact_not_found',
    ]);
    expect((await admin(emu, 'GET', `/_emulator/state/audiences/${audience}`)).json.memberIds).toEqual([
      bulkId(20),
      bulkId(21),
      bulkId(24),
    ]);
    const campaign = FIXTURE_CAMPAIGNS.springWebinar.id;
    const added = await call(emu, 'POST', `/v2/campaigns/${campaign}/contacts/batch`, {
      body: { contacts: [{ email: 'bulk.30@example.com' }, { userId: 'bulk-user-33' }] },
    });
    expect(added.json.data.results.map((r: Row) => r.cnvContactId)).toEqual([bulkId(30), bulkId(33)]);
    const members = (await admin(emu, 'GET', `/_emulator/state/campaigns/${campaign}`)).json.members.map(
      (m: Row) => m.contactId,
    );
    expect(members).toEqual(expect.arrayContaining([bulkId(30), bulkId(33)]));
  });

  it('a record relationship resolves to a bulk contact by userId, whose reverse field is then written (and stored)', async () => {
    const path = `/v2/custom-objects/${FIXTURE_CUSTOM_OBJECT.id}/records/batch`;
    const res = await call(emu, 'POST', path, {
      body: { records: [{ clientDedupKey: 'bulk-sub', fields: { subscriber: 'bulk-user-15' } }] },
    });
    expect(res.json.data.results[0]).toMatchObject({ success: true });
    const [record] = (await admin(emu, 'GET', '/_emulator/state/records?clientDedupKey=bulk-sub')).json;
    expect(record.relationships).toEqual({ subscriber: bulkId(15) });
    const contact = (await getBy(`cnvContactId=${bulkId(15)}`)).json.data.contact;
    expect(contact.fields.subscriptions).toBe('bulk-sub');
    expect(contact.updatedAt > contact.createdAt).toBe(true);
  });

  it('a deleted bulk contact is gone: Get, lookups and the export do not find it', async () => {
    expect((await admin(emu, 'POST', `/_emulator/contacts/${bulkId(13)}/delete`)).json).toMatchObject({
      deleted: true,
    });
    expectError(await getBy(`cnvContactId=${bulkId(13)}`), 404, 'contact_not_found');
    expectError(await getBy('email=bulk.13%40example.com'), 404, 'contact_not_found');
    expect((await walk()).rows.some((r) => r.id === bulkId(13))).toBe(false);
    expect((await admin(emu, 'POST', `/_emulator/contacts/${bulkId(13)}/delete`)).status).toBe(404);
  });
});

describe('bulk contacts: the contacts export', () => {
  it('an upserted bulk contact moves to its new updatedAt: exported once, with its change, at the end', async () => {
    const first = await walk();
    expect(positionsAscend(first.rows)).toBe(true);
    await upsert({ email: 'bulk.100@example.com', fields: { city: 'Lisbon' } });
    await upsert({ cnvContactId: bulkId(50), email: 'fifty@example.com' });
    const { rows } = await walk();
    expect(rows).toHaveLength(first.rows.length);
    expect(positionsAscend(rows)).toBe(true);
    expect(rows.filter((r) => r.id === bulkId(100))).toHaveLength(1);
    expect(rows.filter((r) => r.id === bulkId(50))).toHaveLength(1);
    expect(rows.slice(-2).map((r) => [r.id, r.email, r.fields.City])).toEqual([
      [bulkId(100), 'bulk.100@example.com', 'Lisbon'],
      [bulkId(50), 'fifty@example.com', first.rows.find((r) => r.id === bulkId(50))!.fields.City],
    ]);
    // The walk's last cursor returns the last page again plus what was written since.
    await upsert({ email: 'bulk.101@example.com', fields: { city: 'Porto' } });
    const since = await walk(first.lastCursor);
    expect(since.rows.at(-1)).toMatchObject({ id: bulkId(101), fields: { City: 'Porto' } });
    expect(since.rows.map((r) => r.id)).toEqual(expect.arrayContaining([bulkId(100), bulkId(50), bulkId(101)]));
  });

  it('a cursor taken before writes stays exact: each contact once, a contact written past the cursor only at its new place', async () => {
    const head = await exportPage({ limit: 5000 });
    const cursor = head.json.pagination.nextCursor as string;
    const headRows: Row[] = head.json.data.contacts;
    const lastSeen = headRows.at(-1)!;
    // Bulk rows sort first (2024-06-01): the first page holds bulk 0..4999.
    expect(lastSeen.id).toBe(bulkId(4999));
    await upsert({ cnvContactId: bulkId(4999), fields: { city: 'At the cursor' } });
    await upsert({ email: 'bulk.10@example.com', fields: { city: 'Seen before' } });
    await upsert({ email: 'bulk.6000@example.com', fields: { city: 'Not yet seen' } });
    await admin(emu, 'POST', `/_emulator/contacts/${bulkId(7000)}/delete`);
    const rest = (await walk(cursor)).rows;
    expect(positionsAscend(rest)).toBe(true);
    const ids = rest.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Every bulk contact past the cursor but the written and the deleted ones, in order; then the writes in order.
    const expectedBulk = Array.from({ length: BULK - 5000 }, (_, k) => bulkId(5000 + k)).filter(
      (id) => id !== bulkId(6000) && id !== bulkId(7000),
    );
    expect(ids.filter((id) => id.startsWith('f0000000-')).slice(0, expectedBulk.length)).toEqual(expectedBulk);
    expect(rest.slice(-3).map((r) => [r.id, r.fields.City])).toEqual([
      [bulkId(4999), 'At the cursor'],
      [bulkId(10), 'Seen before'],
      [bulkId(6000), 'Not yet seen'],
    ]);
    // Nothing of the first page comes again but what was written after it was read.
    expect(ids.filter((id) => headRows.some((r) => r.id === id))).toEqual([bulkId(4999), bulkId(10)]);
  });

  it('the whole export counts every contact once: stored, written bulk and computed bulk', async () => {
    const plain = (await walk()).rows.length;
    for (const i of [1, 2000, 9999]) await upsert({ email: `bulk.${i}@example.com`, fields: { score: -i } });
    const { rows } = await walk();
    expect(rows).toHaveLength(plain);
    expect(new Set(rows.map((r) => r.id)).size).toBe(plain);
    expect(rows.filter((r) => r.id.startsWith('f0000000-'))).toHaveLength(BULK);
    expect((await admin(emu, 'GET', '/_emulator/exports/info')).json.contacts).toBe(plain);
  });
});
