import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX, FIXTURE_EVENTS } from '../../src/emulator/seed/fixtures.js';
import { MAX_BODY_DEPTH } from '../../src/emulator/http-io.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

const track = (body: unknown) => call(emu, 'POST', '/v2/events', { body });
const eventsWhere = async (q: string) => (await admin(emu, 'GET', `/_emulator/state/events?${q}`)).json;

describe('POST /v2/events', () => {
  it('records an event for the contact matched by userId and stores the spec fields', async () => {
    const res = await track({ event: 'demo_booked', userId: 'user-ada', clientEventId: 'evt-1', data: { slot: 'am' } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ cnvEventId: expect.stringMatching(/^[0-9a-f-]{36}$/), cnvContactId: FX.ada.id });
    const [stored] = await eventsWhere('clientEventId=evt-1');
    expect(stored).toMatchObject({
      eventId: res.json.data.cnvEventId,
      contactId: FX.ada.id,
      eventName: 'demo_booked',
      source: 'PUBLIC_API',
      clientEventId: 'evt-1',
      data: { slot: 'am' },
    });
    expect(stored.createdAt).toMatch(/\.\d{3}Z$/);
    expect(stored.occurredAt).toBe(stored.createdAt);
  });

  it('falls back to email when the userId matches nothing', async () => {
    const res = await track({ event: 'x', userId: 'unknown-user', email: FX.bounced.email });
    expect(res.json.data.cnvContactId).toBe(FX.bounced.id);
  });

  it('prefers the userId match over the email', async () => {
    const res = await track({ event: 'x', userId: 'user-grace', email: FX.bounced.email });
    expect(res.json.data.cnvContactId).toBe(FX.grace.id);
  });

  it('by email uses the most recently updated contact sharing it', async () => {
    const res = await track({ event: 'x', email: FX.sharedNewer.email });
    expect(res.json.data.cnvContactId).toBe(FX.sharedNewer.id);
  });

  it('answers 400 conflicting_identifier when the email belongs to a contact with another userId', async () => {
    const before = (await eventsWhere('email=ada@example.com')).length;
    expectError(
      await track({ event: 'x', userId: 'user-someone-else', email: FX.ada.email }),
      400,
      'conflicting_identifier',
    );
    expect((await eventsWhere('email=ada@example.com')).length).toBe(before);
    // A contact without a userId does not conflict.
    const ok = await track({ event: 'x', userId: 'user-unlinked', email: FX.unsubscribed.email });
    expect(ok.json.data.cnvContactId).toBe(FX.unsubscribed.id);
    // Unconditional, as the spec's rule reads: also when the userId matched a contact.
    expectError(
      await track({ event: 'x', userId: FX.grace.userId, email: FX.ada.email }),
      400,
      'conflicting_identifier',
    );
    // The email of the userId's own contact is no conflict.
    expect((await track({ event: 'x', userId: FX.ada.userId, email: FX.ada.email })).json.data.cnvContactId).toBe(
      FX.ada.id,
    );
  });

  it('is idempotent on clientEventId: duplicate true, original ids, nothing stored', async () => {
    const first = await track({ event: 'ordered', email: FX.grace.email, clientEventId: 'order-42', data: { n: 1 } });
    const again = await track({
      event: 'ordered-changed',
      email: FX.ada.email,
      clientEventId: 'order-42',
      data: { n: 2 },
    });
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({
      cnvEventId: first.json.data.cnvEventId,
      cnvContactId: FX.grace.id,
      duplicate: true,
    });
    const stored = await eventsWhere('clientEventId=order-42');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ eventName: 'ordered', data: { n: 1 } });
  });

  it('treats a seeded clientEventId as a duplicate too', async () => {
    const res = await track({
      event: 'signed_up',
      userId: 'user-ada',
      clientEventId: FIXTURE_EVENTS.adaSignedUp.clientEventId,
    });
    expect(res.json.data).toEqual({
      cnvEventId: FIXTURE_EVENTS.adaSignedUp.eventId,
      cnvContactId: FX.ada.id,
      duplicate: true,
    });
  });

  it('always creates a new event without clientEventId, generating one', async () => {
    const a = await track({ event: 'no_client_id', userId: 'user-grace' });
    const b = await track({ event: 'no_client_id', userId: 'user-grace' });
    expect(a.json.data.cnvEventId).not.toBe(b.json.data.cnvEventId);
    const stored = await eventsWhere('event=no_client_id');
    expect(stored).toHaveLength(2);
    expect(stored[0].clientEventId).not.toBe(stored[1].clientEventId);
  });

  it('accepts occurredAt and normalises it to UTC with milliseconds', async () => {
    await track({
      event: 'backfill',
      userId: 'user-grace',
      occurredAt: '2024-06-01T12:00:00+02:00',
      clientEventId: 'bf-1',
    });
    const [stored] = await eventsWhere('clientEventId=bf-1');
    expect(stored.occurredAt).toBe('2024-06-01T10:00:00.000Z');
    expectError(
      await track({ event: 'backfill', userId: 'user-grace', occurredAt: 'last tuesday' }),
      400,
      'invalid_request',
    );
    expectError(
      await track({ event: 'backfill', userId: 'user-grace', occurredAt: 1717236000 }),
      400,
      'invalid_request',
    );
  });

  it('answers 404 contact_not_found when nothing matches and createContact is not true', async () => {
    expectError(await track({ event: 'x', email: 'ghost@example.com' }), 404, 'contact_not_found');
    expectError(await track({ event: 'x', userId: 'ghost-user', createContact: false }), 404, 'contact_not_found');
  });

  it('with createContact creates the contact (email required)', async () => {
    const res = await track({
      event: 'first_touch',
      email: 'Born@Example.com',
      userId: 'user-born',
      createContact: true,
    });
    expect(res.status).toBe(200);
    const [contact] = (await admin(emu, 'GET', '/_emulator/state/contacts?email=born@example.com')).json;
    expect(contact).toMatchObject({
      id: res.json.data.cnvContactId,
      email: 'Born@Example.com',
      userId: 'user-born',
      subscriptionStatus: 'NO_STATUS',
    });
    expectError(await track({ event: 'x', userId: 'ghost-user', createContact: true }), 400, 'missing_identifier');
  });

  it('validates event, identifiers and types', async () => {
    expectError(await track({ userId: 'user-ada' }), 400, 'invalid_request');
    expectError(await track({ event: '', userId: 'user-ada' }), 400, 'invalid_request');
    expectError(await track({ event: 5, userId: 'user-ada' }), 400, 'invalid_request');
    expectError(await track({ event: 'x' }), 400, 'missing_identifier');
    expectError(await track({ event: 'x', email: 'bad' }), 400, 'invalid_email');
    expectError(await track({ event: 'x', userId: 'user-ada', data: 'str' }), 400, 'invalid_request');
    expectError(await track({ event: 'x', userId: 'user-ada', createContact: 'yes' }), 400, 'invalid_request');
  });

  it('event data nested 3,000 levels: 400 before anything is stored (no 500 after creating the contact); 200 levels still fit', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const rawBody = `{"event":"deep","email":"deep.data@example.com","createContact":true,"data":{"a":${deep(3000)}}}`;
    const res = await call(emu, 'POST', '/v2/events', { rawBody });
    expect(expectError(res, 400, 'invalid_request').message).toBe(
      `Request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
    );
    expect((await admin(emu, 'GET', '/_emulator/state/contacts?email=deep.data%40example.com')).json).toEqual([]);
    expect(await eventsWhere('event=deep')).toEqual([]);
    // The body object, data, a, then the arrays: MAX_BODY_DEPTH levels in all are accepted.
    const fits = await call(emu, 'POST', '/v2/events', {
      rawBody: `{"event":"deep","email":"deep.data@example.com","createContact":true,"data":{"a":${deep(MAX_BODY_DEPTH - 2)}}}`,
    });
    expect(fits.status).toBe(200);
  });
});
