import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS, FIXTURE_CUSTOM_OBJECT as CO } from '../../src/emulator/seed/fixtures.js';
import { call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

const create = (body: unknown, key?: string) => call(emu, 'POST', '/v2/fields', { body, key });
const list = (q = '', key?: string) => call(emu, 'GET', `/v2/fields${q}`, { key });
const relate = (body: unknown, key?: string) => call(emu, 'POST', '/v2/fields/relationships', { body, key });

describe('POST /v2/fields', () => {
  it('derives a camelCase key from the label and accepts types in any case', async () => {
    const res = await create({ label: 'Lifetime value (EUR)', objectType: 'contact', dataType: 'Number' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: {
        field: { key: 'lifetimeValueEur', label: 'Lifetime value (EUR)', objectType: 'CONTACT', dataType: 'NUMBER' },
      },
    });
  });

  it('keeps an explicit key (Unicode letters allowed) and trims the label', async () => {
    const res = await create({ label: '  Größe ', objectType: 'COMPANY', dataType: 'string', key: 'größe_2' });
    expect(res.json.data.field).toEqual({ key: 'größe_2', label: 'Größe', objectType: 'COMPANY', dataType: 'STRING' });
  });

  it('gives 400 invalid_field for a duplicate key, explicit or derived, across object types', async () => {
    expectError(
      await create({ label: 'Anything', objectType: 'OPPORTUNITY', dataType: 'STRING', key: 'city' }),
      400,
      'invalid_field',
    );
    expectError(await create({ label: 'City', objectType: 'CONTACT', dataType: 'STRING' }), 400, 'invalid_field');
    expectError(await create({ label: 'Seats', objectType: 'COMPANY', dataType: 'NUMBER' }), 400, 'invalid_field');
  });

  it.each([
    [{ label: 'X', objectType: 'LEAD', dataType: 'STRING' }, 'invalid_object_type'],
    [{ label: 'X', objectType: 'CUSTOM_OBJECT', dataType: 'STRING' }, 'invalid_object_type'],
    [{ label: 'X', objectType: 'CAMPAIGN', dataType: 'STRING' }, 'invalid_object_type'],
    [{ label: 'X', objectType: 'CONTACT', dataType: 'TEXT' }, 'invalid_request'],
    [{ label: '  ', objectType: 'CONTACT', dataType: 'STRING' }, 'invalid_request'],
    [{ objectType: 'CONTACT', dataType: 'STRING' }, 'invalid_request'],
    [{ label: 'X', dataType: 'STRING' }, 'invalid_request'],
    [{ label: '!!!', objectType: 'CONTACT', dataType: 'STRING' }, 'invalid_request'],
    [{ label: 'X', objectType: 'CONTACT', dataType: 'STRING', key: 'has space' }, 'invalid_request'],
  ])('refuses %j with 400 %s', async (body, code) => {
    expectError(await create(body), 400, code);
  });

  it('is gated (403 export_not_enabled for basic) and needs no permission: the spec ties field creation permission to relationship fields only', async () => {
    const body = { label: 'Gate test', objectType: 'CONTACT', dataType: 'STRING' };
    expectError(await create(body, emu.keys.basic), 403, 'export_not_enabled');
    expect(
      (await list('?objectType=CONTACT&limit=1000')).json.data.fields.map((f: { key: string }) => f.key),
    ).not.toContain('gateTest');
    const limited = await create(body, emu.keys.limited);
    expect(limited.status).toBe(200);
    expect(limited.json.data.field).toEqual({
      key: 'gateTest',
      label: 'Gate test',
      objectType: 'CONTACT',
      dataType: 'STRING',
    });
  });

  it('a new contact field is writable through contacts upsert and read back by get contact, with type checks', async () => {
    await create({ label: 'Loyalty tier', objectType: 'CONTACT', dataType: 'STRING' });
    await create({ label: 'Churned', objectType: 'CONTACT', dataType: 'BOOLEAN' });
    const up = await call(emu, 'POST', '/v2/contacts', {
      body: { email: FIXTURE_CONTACTS.grace.email, fields: { loyaltyTier: 'gold', churned: false } },
    });
    expect(up.status).toBe(200);
    const got = await call(emu, 'GET', `/v2/contacts?email=${FIXTURE_CONTACTS.grace.email}`);
    expect(got.json.data.contact.fields).toMatchObject({ loyaltyTier: 'gold', churned: false });
    expectError(
      await call(emu, 'POST', '/v2/contacts', { body: { email: 'x@example.com', fields: { churned: 'no' } } }),
      400,
      'invalid_field',
    );
  });
});

describe('GET /v2/fields', () => {
  it('lists items {key,label,objectType,dataType,readOnly}, filtered by objectType in any case', async () => {
    const res = await list('?objectType=company');
    expect(res.status).toBe(200);
    expect(res.json.pagination).toEqual({ nextCursor: null });
    const fields = res.json.data.fields;
    expect(fields.every((f: { objectType: string }) => f.objectType === 'COMPANY')).toBe(true);
    expect(fields).toContainEqual({
      key: 'accountOwner',
      label: 'Account owner',
      objectType: 'COMPANY',
      dataType: 'STRING',
      readOnly: true,
    });
    expect(fields).toContainEqual({
      key: 'companyName',
      label: 'Company name',
      objectType: 'COMPANY',
      dataType: 'STRING',
      readOnly: false,
    });
  });

  it('walks every page with the cursor, without repeats', async () => {
    const all = (await list('?limit=1000')).json.data.fields.map((f: { key: string }) => f.key);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.json.data.fields.length).toBeLessThanOrEqual(7);
      seen.push(...res.json.data.fields.map((f: { key: string }) => f.key));
      cursor = res.json.pagination.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 7));
  });

  it('keeps the filter in the cursor, and refuses a cursor used with another objectType', async () => {
    const first = await list('?objectType=CONTACT&limit=2');
    const cursor = encodeURIComponent(first.json.pagination.nextCursor);
    const second = await list(`?limit=2&cursor=${cursor}`);
    expect(second.json.data.fields.every((f: { objectType: string }) => f.objectType === 'CONTACT')).toBe(true);
    expectError(await list(`?objectType=COMPANY&cursor=${cursor}`), 400, 'invalid_cursor');
    expectError(await list('?cursor=garbage'), 400, 'invalid_cursor');
  });

  it('clamps limit to 1..1000 (default 100) and refuses a non-integer', async () => {
    expect((await list('?limit=0')).json.data.fields).toHaveLength(1);
    expect((await list('?limit=99999')).json.data.fields.length).toBeGreaterThan(20);
    expectError(await list('?limit=ten'), 400, 'invalid_request');
    expectError(await list('?objectType=LEAD'), 400, 'invalid_object_type');
  });

  it("lists a custom object's own fields with customObjectId, relationships included", async () => {
    const res = await list(`?objectType=CUSTOM_OBJECT&customObjectId=${CO.id}`);
    const byKey = Object.fromEntries(res.json.data.fields.map((f: { key: string }) => [f.key, f]));
    expect(
      Object.values(byKey)
        .map((f: any) => f.dataType)
        .sort(),
    ).toEqual(expect.arrayContaining(['BOOLEAN', 'DATE', 'DATETIME', 'NUMBER', 'STRING']));
    expect(byKey.syncedAt.readOnly).toBe(true);
    expect(byKey.subscriber).toMatchObject({
      objectType: 'CUSTOM_OBJECT',
      customObjectId: CO.id,
      dataType: 'STRING',
      readOnly: false,
      relationship: { objectType: 'CONTACT', pairedKey: 'subscriptions', reverse: false },
    });
    // customObjectId alone implies CUSTOM_OBJECT
    expect((await list(`?customObjectId=${CO.id}`)).json.data.fields).toEqual(res.json.data.fields);
    expectError(await list('?customObjectId=c0000000-0000-4000-8000-0000000000ff'), 404, 'custom_object_not_found');
    expectError(await list(`?objectType=CONTACT&customObjectId=${CO.id}`), 400, 'invalid_request');
  });

  it("is not gated: the basic key lists its own business's fields only", async () => {
    const res = await list('', emu.keys.basic);
    expect(res.json.data.fields.map((f: { key: string }) => f.key)).toEqual([
      'firstName',
      'lastName',
      'city',
      'score',
      'companyName',
    ]);
  });
});

describe('POST /v2/fields/relationships', () => {
  const side = (objectType: string, key: string, label: string, customObjectId?: string) => ({
    objectType,
    key,
    label,
    ...(customObjectId ? { customObjectId } : {}),
  });

  it('creates a writable source field and a read-only reverse field, trimming keys and labels', async () => {
    const res = await relate({
      source: side('CUSTOM_OBJECT', '  accountManager ', ' Account manager ', CO.id),
      target: side('contact', 'managedSubscriptions', 'Managed subscriptions'),
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      sourceField: { key: 'accountManager', objectType: 'CUSTOM_OBJECT', customObjectId: CO.id },
      relatedFields: [{ key: 'managedSubscriptions', objectType: 'CONTACT' }],
    });
    const contactFields = (await list('?objectType=CONTACT&limit=1000')).json.data.fields;
    expect(contactFields).toContainEqual({
      key: 'managedSubscriptions',
      label: 'Managed subscriptions',
      objectType: 'CONTACT',
      dataType: 'STRING',
      readOnly: true,
      relationship: { objectType: 'CUSTOM_OBJECT', customObjectId: CO.id, pairedKey: 'accountManager', reverse: true },
    });
    const coFields = (await list(`?customObjectId=${CO.id}`)).json.data.fields;
    expect(coFields.find((f: { key: string }) => f.key === 'accountManager')).toMatchObject({
      label: 'Account manager',
      readOnly: false,
    });
    // The reverse side is maintained by the service: contacts upsert cannot write it.
    expectError(
      await call(emu, 'POST', '/v2/contacts', {
        body: { email: 'ada@example.com', fields: { managedSubscriptions: 'x' } },
      }),
      400,
      'invalid_field',
    );
  });

  it('accepts standard objects on both sides and Unicode keys', async () => {
    const res = await relate({
      source: side('OPPORTUNITY', 'käufer', 'Käufer'),
      target: side('CAMPAIGN', 'opportunités', 'Opportunités'),
    });
    expect(res.json.data.sourceField).toEqual({ key: 'käufer', objectType: 'OPPORTUNITY' });
  });

  it.each([
    [{ target: side('CONTACT', 'a1', 'A') }, 400, 'invalid_request'],
    [{ source: side('CONTACT', 'a2', 'A'), target: 'x' }, 400, 'invalid_request'],
    [{ source: side('CONTACT', 'bad-key', 'A'), target: side('COMPANY', 'b2', 'B') }, 400, 'invalid_request'],
    [{ source: side('CONTACT', '   ', 'A'), target: side('COMPANY', 'b3', 'B') }, 400, 'invalid_request'],
    [{ source: side('CONTACT', 'a4', ' '), target: side('COMPANY', 'b4', 'B') }, 400, 'invalid_request'],
    [{ source: side('CUSTOM_OBJECT', 'a5', 'A'), target: side('CONTACT', 'b5', 'B') }, 400, 'invalid_request'],
    [{ source: side('CONTACT', 'a6', 'A', CO.id), target: side('COMPANY', 'b6', 'B') }, 400, 'invalid_request'],
    [
      { source: side('CUSTOM_OBJECT', 'a7', 'A', 'not-a-uuid'), target: side('CONTACT', 'b7', 'B') },
      400,
      'invalid_request',
    ],
    [{ source: side('LEAD', 'a8', 'A'), target: side('CONTACT', 'b8', 'B') }, 400, 'invalid_object_type'],
    [{ source: side('CONTACT', 'city', 'A'), target: side('COMPANY', 'b9', 'B') }, 400, 'invalid_field'],
    [{ source: side('CONTACT', 'same', 'A'), target: side('COMPANY', 'same', 'B') }, 400, 'invalid_field'],
    [
      {
        source: side('CUSTOM_OBJECT', 'a10', 'A', 'c0000000-0000-4000-8000-0000000000ff'),
        target: side('CONTACT', 'b10', 'B'),
      },
      404,
      'custom_object_not_found',
    ],
  ])('refuses %j with %i %s and defines nothing', async (body, status, code) => {
    expectError(await relate(body), status, code);
    const keys = (await list('?limit=1000')).json.data.fields.map((f: { key: string }) => f.key);
    expect(keys.filter((k: string) => /^(a|b)\d+$|^same$/.test(k))).toEqual([]);
  });

  it('gives 403 forbidden to a key without the permission, and when custom objects are not enabled', async () => {
    const body = { source: side('CONTACT', 'p1', 'P'), target: side('COMPANY', 'p2', 'P') };
    expectError(await relate(body, emu.keys.limited), 403, 'forbidden');
    const custom = { source: side('CUSTOM_OBJECT', 'p3', 'P', CO.id), target: side('CONTACT', 'p4', 'P') };
    const denied = expectError(await relate(custom, emu.keys.basic), 403, 'forbidden');
    expect(denied.message).toMatch(/custom objects are not enabled/i);
    // The basic business may still relate standard objects.
    expect((await relate(body, emu.keys.basic)).status).toBe(200);
  });
});
