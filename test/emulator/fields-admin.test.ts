import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
let bulk: Emulator;
beforeAll(async () => {
  [emu, bulk] = await Promise.all([
    startEmulator({ port: 0, quiet: true, rateLimit: 0 }),
    startEmulator({ port: 0, quiet: true, rateLimit: 0, seed: 'none', seedContacts: 3 }),
  ]);
});
afterAll(async () => {
  await Promise.all([emu.close(), bulk.close()]);
});

type Row = Record<string, any>;
async function exportedContact(e: Emulator, id: string): Promise<Row> {
  const rows: Row[] = (await call(e, 'POST', '/v2/exports/contacts', { body: { limit: 5000 } })).json.data.contacts;
  return rows.find((r) => r.id === id)!;
}
const fieldsOf = async (e: Emulator, type: string) =>
  (await call(e, 'GET', `/v2/fields?objectType=${type}`)).json.data.fields as { key: string; label: string }[];

describe('POST /_emulator/fields/:key (relabel)', () => {
  it('relabels a field: the list and the export use the new label, the key and the values stay, updatedAt does not move', async () => {
    const before = await exportedContact(emu, FX.ada.id);
    const res = await admin(emu, 'POST', '/_emulator/fields/city', { label: '  Town ' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ field: { key: 'city', label: 'Town', objectType: 'CONTACT' }, business: 'acme' });
    expect((await fieldsOf(emu, 'CONTACT')).find((f) => f.key === 'city')?.label).toBe('Town');
    const after = await exportedContact(emu, FX.ada.id);
    expect(after.fields.Town).toBe(before.fields.City);
    expect(after.fields).not.toHaveProperty('City');
    expect(after.updatedAt).toBe(before.updatedAt);
    const got = (await call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.ada.id}`)).json.data.contact;
    expect(got.fields.city).toBe(before.fields.City);
  });

  it('checks ?objectType= and ?business=, and refuses a blank label', async () => {
    const ok = await admin(emu, 'POST', '/_emulator/fields/employees?objectType=company', { label: 'Headcount' });
    expect(ok.json.field).toMatchObject({ key: 'employees', label: 'Headcount', objectType: 'COMPANY' });
    expectError(
      await admin(emu, 'POST', '/_emulator/fields/employees?objectType=CONTACT', { label: 'x' }),
      404,
      'field_not_found',
    );
    expectError(await admin(emu, 'POST', '/_emulator/fields/nope', { label: 'x' }), 404, 'field_not_found');
    expectError(await admin(emu, 'POST', '/_emulator/fields/city', { label: ' ' }), 400, 'invalid_request');
    expectError(await admin(emu, 'POST', '/_emulator/fields/city', {}), 400, 'invalid_request');
    expectError(
      await admin(emu, 'POST', '/_emulator/fields/vip?business=basic', { label: 'x' }),
      404,
      'field_not_found',
    );
    expectError(await admin(emu, 'POST', '/_emulator/fields/city?business=zzz', { label: 'x' }), 404, 'not_found');
    const basic = await admin(emu, 'POST', '/_emulator/fields/city?business=basic', { label: 'Basic town' });
    expect(basic.json.business).toBe('basic');
  });

  it('keeps a field labelled __proto__, constructor or toString in the export', async () => {
    await admin(emu, 'POST', '/_emulator/fields/score', { label: '__proto__' });
    await admin(emu, 'POST', '/_emulator/fields/firstName', { label: 'constructor' });
    await admin(emu, 'POST', '/_emulator/fields/lastName', { label: 'toString' });
    const res = await call(emu, 'POST', '/v2/exports/contacts', { body: { limit: 5000 } });
    const raw = JSON.parse(JSON.stringify(res.json)) as Row;
    const ada = raw.data.contacts.find((r: Row) => r.id === FX.ada.id);
    expect(Object.hasOwn(ada.fields, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(ada.fields, '__proto__')?.value).toBe(42);
    expect(Object.hasOwn(ada.fields, 'constructor')).toBe(true);
    expect(ada.fields.toString).toBe('Lovelace');
    await admin(emu, 'POST', '/_emulator/reset');
  });

  it('stores and returns a value of a field whose key is __proto__', async () => {
    const created = await call(emu, 'POST', '/v2/fields', {
      body: { label: 'Proto', key: '__proto__', objectType: 'CONTACT', dataType: 'STRING' },
    });
    expect(created.status).toBe(200);
    const write = await call(emu, 'POST', '/v2/contacts', {
      rawBody: `{"email":"${FX.grace.email}","fields":{"__proto__":"kept"}}`,
    });
    expect(write.status, JSON.stringify(write.json)).toBe(200);
    const got = await call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.grace.id}`);
    expect(Object.getOwnPropertyDescriptor(got.json.data.contact.fields, '__proto__')?.value).toBe('kept');
    const row = await exportedContact(emu, FX.grace.id);
    expect(Object.getOwnPropertyDescriptor(row.fields, 'Proto')?.value).toBe('kept');
    await admin(emu, 'POST', '/_emulator/reset');
  });
});

describe('POST /_emulator/fields/:key/delete', () => {
  it('deletes a contact field: its values are no longer returned nor writable, updatedAt does not move; the key is free again', async () => {
    const before = await exportedContact(emu, FX.ada.id);
    const res = await admin(emu, 'POST', '/_emulator/fields/vip/delete');
    expect(res.json).toMatchObject({ deleted: true, field: { key: 'vip', objectType: 'CONTACT' }, business: 'acme' });
    expect(res.json.values).toBeGreaterThan(0);
    expect((await fieldsOf(emu, 'CONTACT')).map((f) => f.key)).not.toContain('vip');
    const after = await exportedContact(emu, FX.ada.id);
    expect(after.fields).not.toHaveProperty('VIP');
    expect(after.updatedAt).toBe(before.updatedAt);
    const got = (await call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.ada.id}`)).json.data.contact;
    expect(got.fields).not.toHaveProperty('vip');
    expectError(
      await call(emu, 'POST', '/v2/contacts', { body: { email: FX.ada.email, fields: { vip: true } } }),
      400,
      'invalid_field',
    );
    expectError(await admin(emu, 'POST', '/_emulator/fields/vip/delete'), 404, 'field_not_found');
    // Created again, the field starts empty: the old values went with the old field.
    await call(emu, 'POST', '/v2/fields', {
      body: { label: 'VIP', key: 'vip', objectType: 'CONTACT', dataType: 'BOOLEAN' },
    });
    expect((await exportedContact(emu, FX.ada.id)).fields).not.toHaveProperty('VIP');
  });

  it('deletes a company field from the companies', async () => {
    const res = await admin(emu, 'POST', '/_emulator/fields/companyName/delete?objectType=COMPANY');
    expect(res.json.deleted).toBe(true);
    const state = (await admin(emu, 'GET', `/_emulator/state/contacts?id=${FX.ada.id}`)).json;
    expect(state[0].company.fields).not.toHaveProperty('companyName');
    expectError(
      await call(emu, 'POST', '/v2/contacts', { body: { email: FX.ada.email, companyFields: { companyName: 'x' } } }),
      400,
      'invalid_field',
    );
  });

  it('refuses other object types', async () => {
    expectError(await admin(emu, 'POST', '/_emulator/fields/stage/delete'), 400, 'invalid_request');
    await admin(emu, 'POST', '/_emulator/reset');
  });

  it('leaves a deleted field out of the bulk contacts as computed', async () => {
    await call(bulk, 'POST', '/v2/fields', {
      body: { label: 'City', key: 'city', objectType: 'CONTACT', dataType: 'STRING' },
    });
    await call(bulk, 'POST', '/v2/fields', {
      body: { label: 'Score', key: 'score', objectType: 'CONTACT', dataType: 'NUMBER' },
    });
    for (const [key, label] of [
      ['firstName', 'First name'],
      ['lastName', 'Last name'],
    ]) {
      await call(bulk, 'POST', '/v2/fields', { body: { label, key, objectType: 'CONTACT', dataType: 'STRING' } });
    }
    const rows = async () =>
      (await call(bulk, 'POST', '/v2/exports/contacts', { body: {} })).json.data.contacts as Row[];
    expect(Object.keys((await rows())[0].fields).sort()).toEqual(['City', 'First name', 'Last name', 'Score']);
    await admin(bulk, 'POST', '/_emulator/fields/city/delete');
    const after = await rows();
    expect(after).toHaveLength(3);
    expect(Object.keys(after[0].fields).sort()).toEqual(['First name', 'Last name', 'Score']);
    const got = (await call(bulk, 'GET', `/v2/contacts?cnvContactId=${after[0].id}`)).json.data.contact;
    expect(got.fields).not.toHaveProperty('city');
  });
});
