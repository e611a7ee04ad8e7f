import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

describe('authentication and enablement', () => {
  it('exposes the documented keys', () => {
    expect(emu.keys).toEqual(DEMO_KEYS);
    for (const key of Object.values(DEMO_KEYS)) expect(key).toMatch(/^sk_live_[a-z0-9]+_[0-9a-f]{32}$/);
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 401 unauthorized when the key is missing', async () => {
    const res = await call(emu, 'POST', '/v2/contacts', { key: null, body: { email: 'x@example.com' } });
    expect(expectError(res, 401, 'unauthorized').message).toBe('API key is required');
  });

  it('answers 401 unauthorized when the key is unknown', async () => {
    const res = await call(emu, 'GET', '/v2/contacts?email=ada@example.com', { key: 'sk_live_nope_0000' });
    expect(expectError(res, 401, 'unauthorized').message).toBe('API key is invalid');
  });

  it('answers 403 export_not_enabled on Get contact for the basic key', async () => {
    const res = await call(emu, 'GET', '/v2/contacts?email=basic.user@example.com', { key: DEMO_KEYS.basic });
    expectError(res, 403, 'export_not_enabled');
  });

  it('lets the basic key upsert and track in its own business only', async () => {
    const up = await call(emu, 'POST', '/v2/contacts', {
      key: DEMO_KEYS.basic,
      body: { email: FIXTURE_CONTACTS.ada.email, fields: { firstName: 'Other Ada' } },
    });
    expect(up.status).toBe(200);
    // ada@example.com does not exist in business "basic": a new contact is created there.
    expect(up.json.data.contactCreated).toBe(true);
    expect(up.json.data.cnvContactId).not.toBe(FIXTURE_CONTACTS.ada.id);
    const acme = await call(emu, 'GET', `/v2/contacts?email=${FIXTURE_CONTACTS.ada.email}`);
    expect(acme.json.data.contact.cnvContactId).toBe(FIXTURE_CONTACTS.ada.id);
    expect(acme.json.data.contact.fields.firstName).toBe('Ada');
  });

  it('gives the limited key the same business data as the full key', async () => {
    const res = await call(emu, 'GET', `/v2/contacts?cnvContactId=${FIXTURE_CONTACTS.grace.id}`, {
      key: DEMO_KEYS.limited,
    });
    expect(res.status).toBe(200);
    expect(res.json.data.contact.email).toBe('grace@example.com');
  });

  it('answers JSON everywhere, with the spec error body', async () => {
    const res = await call(emu, 'GET', '/v2/nothing-here');
    expect(res.headers.get('content-type')).toBe('application/json');
    expectError(res, 404, 'not_found');
    const outside = await call(emu, 'GET', '/elsewhere', { key: null });
    expectError(outside, 404, 'not_found');
  });

  it('answers 405 method_not_allowed with an Allow header', async () => {
    const res = await call(emu, 'PUT', '/v2/contacts', { body: {} });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('rejects malformed JSON and non-object bodies with 400 invalid_request', async () => {
    expectError(await call(emu, 'POST', '/v2/contacts', { rawBody: '{"email":' }), 400, 'invalid_request');
    expectError(await call(emu, 'POST', '/v2/contacts', { rawBody: '[1,2]' }), 400, 'invalid_request');
    expectError(await call(emu, 'POST', '/v2/events', { rawBody: '"text"' }), 400, 'invalid_request');
  });

  it('checks the key before the route', async () => {
    expectError(await call(emu, 'GET', '/v2/nothing-here', { key: null }), 401, 'unauthorized');
  });
});
