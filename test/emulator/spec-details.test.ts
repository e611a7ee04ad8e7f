import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/emulator/cursor.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

// Details where a real server would follow the spec: path ids, cursors across restarts, no-op
// writes, the JSON content type.
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

const stateOf = async (id: string) => (await admin(emu, 'GET', `/_emulator/state/contacts?id=${id}`)).json[0];

describe('malformed path ids', () => {
  const body = { email: FX.ada.email };
  it.each([
    ['POST', '/v2/workflows/nope/trigger', body, 'workflow_not_found'],
    ['POST', '/v2/audiences/nope/contacts', body, 'audience_not_found'],
    ['DELETE', '/v2/audiences/nope/contacts', body, 'audience_not_found'],
    ['POST', '/v2/audiences/nope/contacts/batch', { contacts: [body] }, 'audience_not_found'],
    ['GET', '/v2/campaigns/nope', undefined, 'campaign_not_found'],
    ['POST', '/v2/campaigns/nope/contacts', body, 'campaign_not_found'],
    ['POST', '/v2/campaigns/nope/contacts/batch', { contacts: [body] }, 'campaign_not_found'],
    ['GET', '/v2/forms/nope', undefined, 'form_not_found'],
    [
      'POST',
      '/v2/custom-objects/nope/records/batch',
      { records: [{ clientDedupKey: 'k' }] },
      'custom_object_not_found',
    ],
  ])("%s %s is the resource's 404, like an unknown id", async (method, path, reqBody, code) => {
    expectError(await call(emu, method, path, { body: reqBody }), 404, code);
  });
});

describe('cursors across restarts', () => {
  it('a cursor of an earlier life (restarted with the same seed, or reset) is invalid_cursor, as is one of another seed', async () => {
    const page = await call(emu, 'POST', '/v2/exports/contacts', { body: { limit: 5 } });
    const cursor = page.json.pagination.nextCursor;
    const campaigns = (await call(emu, 'GET', '/v2/campaigns?limit=2')).json.pagination.nextCursor;
    const same = await startEmulator({ port: 0, quiet: true });
    const other = await startEmulator({ port: 0, quiet: true, seed: 7 });
    try {
      expectError(
        await call(same, 'POST', '/v2/exports/contacts', { body: { cursor, limit: 5 }, key: same.keys.full }),
        400,
        'invalid_cursor',
      );
      expectError(
        await call(same, 'GET', `/v2/campaigns?cursor=${campaigns}`, { key: same.keys.full }),
        400,
        'invalid_cursor',
      );
      expect((await call(emu, 'POST', '/v2/exports/contacts', { body: { cursor, limit: 5 } })).status).toBe(200);
      await admin(emu, 'POST', '/_emulator/reset');
      expectError(
        await call(emu, 'POST', '/v2/exports/contacts', { body: { cursor, limit: 5 } }),
        400,
        'invalid_cursor',
      );
      expectError(
        await call(other, 'POST', '/v2/exports/contacts', { body: { cursor }, key: other.keys.full }),
        400,
        'invalid_cursor',
      );
    } finally {
      await same.close();
      await other.close();
    }
  });

  it('a cursor signed with the key but of the wrong shape (forged by someone holding it) is invalid_cursor, not a crash', async () => {
    const secret = emu.store.business('acme').cursorSecret;
    const forged = (payload: unknown, kind: string) => encodeCursor(payload, kind, secret);
    const good = forged({ b: 'acme', w: [0, null], g: 0, p: null }, 'export-custom-events');
    expect((await call(emu, 'POST', '/v2/exports/custom-events', { body: { cursor: good, limit: 1 } })).status).toBe(
      200,
    );
    for (const [payload, kind, path] of [
      [{ b: 'acme', w: 'x', g: 0, p: null }, 'export-custom-events', 'custom-events'],
      [{ b: 'acme', w: [0, null], g: 'soon', p: null }, 'export-custom-events', 'custom-events'],
      [{ b: 'acme', w: [0, null], g: 0, p: [1] }, 'export-custom-events', 'custom-events'],
      [{ b: 'acme', p: 'x' }, 'export-contacts', 'contacts'],
      [{ b: 'acme', t: 'EMAIL_NOPE', p: [1, 'a'] }, 'export-email-events', 'email-events'],
    ] as const) {
      const body = { cursor: forged(payload, kind), ...(path === 'email-events' ? { eventType: 'EMAIL_SEND' } : {}) };
      expectError(await call(emu, 'POST', `/v2/exports/${path}`, { body }), 400, 'invalid_cursor');
    }
  });
});

describe('no-op upserts', () => {
  it('a contact upsert that changes nothing keeps updatedAt (and the export position); a change moves it', async () => {
    const before = await stateOf(FX.ada.id);
    const { firstName, city, score } = before.fields;
    const same = await call(emu, 'POST', '/v2/contacts', {
      body: { email: FX.ada.email, subscriptionStatus: before.subscriptionStatus, fields: { firstName, city, score } },
    });
    expect(same.json.data).toEqual({ cnvContactId: FX.ada.id, contactCreated: false });
    expect((await stateOf(FX.ada.id)).updatedAt).toBe(before.updatedAt);
    const exported = await call(emu, 'POST', '/v2/exports/contacts', { body: { limit: 5000 } });
    expect(exported.json.data.contacts.at(-1).id).not.toBe(FX.ada.id);
    await call(emu, 'POST', '/v2/contacts', { body: { email: FX.ada.email, fields: { city: 'Somewhere new' } } });
    expect((await stateOf(FX.ada.id)).updatedAt > before.updatedAt).toBe(true);
  });
});

describe('request content type', () => {
  const send = (headers: Record<string, string>, body = JSON.stringify({ email: 'typed@example.com' })) =>
    fetch(`${emu.url}/v2/contacts`, { method: 'POST', headers: { 'x-api-key': emu.keys.full, ...headers }, body });

  it.each([[{ 'content-type': 'text/plain' }], [{ 'content-type': 'application/x-www-form-urlencoded' }], [{}]])(
    'refuses a body sent with %j: 400 invalid_request, nothing written',
    async (headers) => {
      const res = await send(headers);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/Content-Type: application\/json/),
      });
      expect((await admin(emu, 'GET', '/_emulator/state/contacts?email=typed@example.com')).json).toEqual([]);
    },
  );

  it('accepts application/json with parameters, in any case; a request without a body needs no type', async () => {
    expect((await send({ 'content-type': 'Application/JSON; charset=utf-8' })).status).toBe(200);
    const get = await fetch(`${emu.url}/v2/contacts?email=typed@example.com`, {
      headers: { 'x-api-key': emu.keys.full },
    });
    expect(get.status).toBe(200);
  });
});
