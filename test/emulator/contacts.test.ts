import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

const upsert = (body: unknown) => call(emu, 'POST', '/v2/contacts', { body });
const getBy = (q: string) => call(emu, 'GET', `/v2/contacts?${q}`);
const stateOf = async (id: string) => (await admin(emu, 'GET', `/_emulator/state/contacts?id=${id}`)).json[0];

describe('POST /v2/contacts (upsert)', () => {
  it('creates a contact by a new email with NO_STATUS by default', async () => {
    const res = await upsert({ email: 'new.person@example.com', fields: { firstName: 'New', score: 7 } });
    expect(res.status).toBe(200);
    expect(res.json.data.contactCreated).toBe(true);
    expect(res.json.data.cnvContactId).toMatch(/^[0-9a-f-]{36}$/);
    const got = await getBy('email=new.person@example.com');
    expect(got.json.data.contact).toMatchObject({
      cnvContactId: res.json.data.cnvContactId,
      email: 'new.person@example.com',
      userId: null,
      subscriptionStatus: 'NO_STATUS',
      fields: { firstName: 'New', score: 7 },
    });
    expect(got.json.data.contact.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('updates an existing contact by email, bumping updatedAt, and reports contactCreated false', async () => {
    const before = await stateOf(FX.grace.id);
    const res = await upsert({
      email: 'GRACE@example.com',
      subscriptionStatus: 'UNSUBSCRIBED',
      fields: { city: 'Arlington' },
    });
    expect(res.json.data).toEqual({ cnvContactId: FX.grace.id, contactCreated: false });
    const after = await stateOf(FX.grace.id);
    expect(after.subscriptionStatus).toBe('UNSUBSCRIBED');
    expect(after.fields).toMatchObject({ firstName: 'Grace', city: 'Arlington' });
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.createdAt).toBe(before.createdAt);
  });

  it('by email updates the most recently updated of contacts sharing the address', async () => {
    const res = await upsert({ email: FX.sharedNewer.email, fields: { city: 'Shared City' } });
    expect(res.json.data.cnvContactId).toBe(FX.sharedNewer.id);
    expect((await stateOf(FX.sharedOlder.id)).fields.city).toBeUndefined();
  });

  it('with cnvContactId and email identifies by id and updates the address', async () => {
    const res = await upsert({ cnvContactId: FX.linus.id, email: 'linus.new@example.com' });
    expect(res.json.data).toEqual({ cnvContactId: FX.linus.id, contactCreated: false });
    expect((await getBy(`cnvContactId=${FX.linus.id}`)).json.data.contact.email).toBe('linus.new@example.com');
    expectError(await getBy('email=linus@example.com'), 404, 'contact_not_found');
    expect((await getBy('email=linus.new@example.com')).json.data.contact.cnvContactId).toBe(FX.linus.id);
  });

  it('answers 404 contact_not_found for an unknown cnvContactId', async () => {
    expectError(
      await upsert({ cnvContactId: '9b2f3c1e-0000-4000-8000-000000000000', email: 'z@example.com' }),
      404,
      'contact_not_found',
    );
  });

  it('with updateOnly never creates', async () => {
    expectError(await upsert({ email: 'nobody.here@example.com', updateOnly: true }), 404, 'contact_not_found');
    const state = await admin(emu, 'GET', '/_emulator/state/contacts?email=nobody.here@example.com');
    expect(state.json).toEqual([]);
    const ok = await upsert({ email: FX.ada.email, updateOnly: true, fields: { score: 43 } });
    expect(ok.json.data).toEqual({ cnvContactId: FX.ada.id, contactCreated: false });
  });

  it('answers 400 missing_identifier without email or cnvContactId', async () => {
    expectError(await upsert({ fields: { city: 'Nowhere' } }), 400, 'missing_identifier');
    expectError(await upsert({ email: '  ', userId: 'user-ada' }), 400, 'missing_identifier');
  });

  it('answers 400 invalid_email for malformed addresses', async () => {
    for (const email of ['not-an-email', 'a@b', 'two@@example.com', 'sp ace@example.com', 42]) {
      expectError(await upsert({ email }), 400, 'invalid_email');
    }
  });

  it('answers 400 invalid_request for a cnvContactId that is not a UUID', async () => {
    expectError(await upsert({ cnvContactId: 'abc' }), 400, 'invalid_request');
  });

  it('accepts only SUBSCRIBED, UNSUBSCRIBED and NO_STATUS', async () => {
    for (const s of ['BOUNCED', 'COMPLAINED', 'subscribed', 'OPTED_IN', 1]) {
      expectError(await upsert({ email: FX.ada.email, subscriptionStatus: s }), 400, 'invalid_subscription_status');
    }
    const res = await upsert({ email: FX.bounced.email, subscriptionStatus: 'SUBSCRIBED' });
    expect(res.status).toBe(200);
    expect((await stateOf(FX.bounced.id)).subscriptionStatus).toBe('SUBSCRIBED');
  });

  it('rejects unknown, read-only and mistyped fields with invalid_field naming the key, changing nothing', async () => {
    const before = await stateOf(FX.ada.id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fields: { noSuchField: 'x' } }, 'noSuchField'],
      [{ fields: { leadScore: 99 } }, 'leadScore'],
      [{ fields: { createdBy: 'me' } }, 'createdBy'],
      [{ fields: { companyName: 'Wrong object' } }, 'companyName'],
      [{ fields: { score: '12' } }, 'score'],
      [{ fields: { vip: 'yes' } }, 'vip'],
      [{ fields: { birthday: '1815-13-10' } }, 'birthday'],
      [{ fields: { lastSeenAt: 'yesterday' } }, 'lastSeenAt'],
      [{ fields: { firstName: 5 } }, 'firstName'],
      [{ companyFields: { accountOwner: 'me' } }, 'accountOwner'],
      [{ companyFields: { city: 'Paris' } }, 'city'],
      [{ companyFields: { employees: 'many' } }, 'employees'],
    ];
    for (const [extra, key] of cases) {
      const err = expectError(
        await upsert({ email: FX.ada.email, fields: { city: 'Changed' }, ...extra }),
        400,
        'invalid_field',
      );
      expect(err.message).toContain(key);
    }
    expect(await stateOf(FX.ada.id)).toEqual(before);
  });

  it('writes every dataType and company fields, and null clears a field', async () => {
    const res = await upsert({
      email: FX.ada.email,
      fields: { vip: false, birthday: '1815-12-11', lastSeenAt: '2025-02-01T10:00:00+01:00', score: 1.5, city: null },
      companyFields: { employees: 13, website: 'https://engines.example.com' },
    });
    expect(res.status).toBe(200);
    const state = await stateOf(FX.ada.id);
    expect(state.fields).toMatchObject({
      vip: false,
      birthday: '1815-12-11',
      lastSeenAt: '2025-02-01T10:00:00+01:00',
      score: 1.5,
    });
    expect(state.fields).not.toHaveProperty('city');
    expect(state.company.fields).toMatchObject({
      companyName: 'Analytical Engines Ltd',
      employees: 13,
      website: 'https://engines.example.com',
    });
  });

  it('creates a company for a contact without one when companyFields are sent', async () => {
    const res = await upsert({ email: 'company.less@example.com', companyFields: { companyName: 'Fresh Co' } });
    const state = await stateOf(res.json.data.cnvContactId);
    expect(state.company.fields).toEqual({ companyName: 'Fresh Co' });
  });

  it('with preserveExisting writes only empty or unset fields', async () => {
    const id = (await upsert({ email: 'preserve@example.com', fields: { firstName: 'Keep', city: '' } })).json.data
      .cnvContactId;
    await upsert({
      email: 'preserve@example.com',
      preserveExisting: true,
      fields: { firstName: 'Overwrite', city: 'Filled', score: 5 },
    });
    expect((await stateOf(id)).fields).toEqual({ firstName: 'Keep', city: 'Filled', score: 5 });
    await upsert({ email: 'preserve@example.com', preserveExisting: false, fields: { firstName: 'Overwrite' } });
    expect((await stateOf(id)).fields.firstName).toBe('Overwrite');
  });

  it('with syncToCrm gives a contact without a CRM record a CRM lead id', async () => {
    const id = (await upsert({ email: 'crm@example.com' })).json.data.cnvContactId;
    expect((await stateOf(id)).sfdcLeadId).toBeNull();
    await upsert({ email: 'crm@example.com', syncToCrm: true });
    expect((await stateOf(id)).sfdcLeadId).toMatch(/^00Q.{15}$/);
  });

  it('ignores unknown body keys and rejects wrongly typed known ones', async () => {
    expect((await upsert({ email: FX.ada.email, somethingElse: { a: 1 } })).status).toBe(200);
    expectError(await upsert({ email: FX.ada.email, updateOnly: 'yes' }), 400, 'invalid_request');
    expectError(await upsert({ email: FX.ada.email, fields: [1] }), 400, 'invalid_request');
  });
});

describe('GET /v2/contacts', () => {
  it('returns the contact shape by email', async () => {
    const res = await getBy(`email=${encodeURIComponent(FX.complained.email)}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data.contact).sort()).toEqual([
      'cnvContactId',
      'createdAt',
      'email',
      'fields',
      'subscriptionStatus',
      'updatedAt',
      'userId',
    ]);
    expect(res.json.data.contact).toMatchObject({
      cnvContactId: FX.complained.id,
      userId: 'user-complained',
      subscriptionStatus: 'COMPLAINED',
    });
  });

  it('by email returns the most recently updated of contacts sharing it', async () => {
    const fresh = await startEmulator({ port: 0, quiet: true });
    try {
      const first = await call(fresh, 'GET', '/v2/contacts?email=shared@example.com');
      expect(first.json.data.contact.cnvContactId).toBe(FX.sharedNewer.id);
      // Updating the older one makes it the most recent.
      await call(fresh, 'POST', '/v2/contacts', {
        body: { cnvContactId: FX.sharedOlder.id, fields: { city: 'Bump' } },
      });
      const second = await call(fresh, 'GET', '/v2/contacts?email=shared@example.com');
      expect(second.json.data.contact.cnvContactId).toBe(FX.sharedOlder.id);
    } finally {
      await fresh.close();
    }
  });

  it('prefers cnvContactId when both are given', async () => {
    const res = await getBy(`cnvContactId=${FX.bounced.id}&email=${FX.ada.email}`);
    expect(res.json.data.contact.cnvContactId).toBe(FX.bounced.id);
  });

  it('answers missing_identifier, invalid_email, invalid_request and contact_not_found', async () => {
    expectError(await getBy(''), 400, 'missing_identifier');
    expectError(await getBy('email='), 400, 'missing_identifier');
    expectError(await getBy('email=nope'), 400, 'invalid_email');
    expectError(await getBy('cnvContactId=123'), 400, 'invalid_request');
    expectError(await getBy('email=missing.person@example.com'), 404, 'contact_not_found');
    expectError(await getBy('cnvContactId=11111111-1111-4111-8111-111111111111'), 404, 'contact_not_found');
  });
});
