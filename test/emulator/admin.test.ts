import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, describeEmulator, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

describe('admin routes', () => {
  it('inspects contacts by email, id and userId, per business', async () => {
    const shared = (await admin(emu, 'GET', '/_emulator/state/contacts?email=shared@example.com')).json;
    expect(shared.map((c: { id: string }) => c.id)).toEqual([FX.sharedNewer.id, FX.sharedOlder.id]);
    const byId = (await admin(emu, 'GET', `/_emulator/state/contacts?id=${FX.ada.id}`)).json;
    expect(byId[0].company.fields.companyName).toBe('Analytical Engines Ltd');
    expect((await admin(emu, 'GET', '/_emulator/state/contacts?userId=user-grace')).json[0].id).toBe(FX.grace.id);
    const basic = (await admin(emu, 'GET', '/_emulator/state/contacts?business=basic')).json;
    expect(basic.map((c: { email: string }) => c.email)).toContain('basic.user@example.com');
    expectError(await admin(emu, 'GET', '/_emulator/state/contacts?business=zzz'), 404, 'not_found');
  });

  it('inspects events by email, userId and event name', async () => {
    const ada = (await admin(emu, 'GET', '/_emulator/state/events?email=ada@example.com')).json;
    expect(ada.map((e: { eventName: string }) => e.eventName)).toEqual(
      expect.arrayContaining(['signed_up', 'purchase']),
    );
    const purchase = (await admin(emu, 'GET', '/_emulator/state/events?userId=user-ada&event=purchase')).json;
    expect(purchase).toHaveLength(1);
  });

  it('a stuck clock shows every write at one millisecond (the export still in write order); let go, or a reset, and times move again', async () => {
    const write = async (email: string) => {
      expect((await call(emu, 'POST', '/v2/contacts', { body: { email } })).status).toBeLessThan(300);
      return (await call(emu, 'GET', `/v2/contacts?email=${email}`)).json.data.contact.updatedAt as string;
    };
    expectError(await admin(emu, 'POST', '/_emulator/clock', { stuck: 'yes' }), 400, 'invalid_request');
    const { shows } = (await admin(emu, 'POST', '/_emulator/clock', { stuck: true })).json;
    expect(shows).toMatch(/\.\d{3}Z$/);
    expect([await write('stuck.1@example.com'), await write('stuck.2@example.com')]).toEqual([shows, shows]);
    const exported = (await call(emu, 'POST', '/v2/exports/contacts', { body: { limit: 5000 } })).json.data.contacts;
    const emails = exported.map((c: { email: string }) => c.email);
    expect(emails.indexOf('stuck.1@example.com')).toBeLessThan(emails.indexOf('stuck.2@example.com'));
    expect((await admin(emu, 'POST', '/_emulator/clock', { stuck: false })).json).toEqual({ stuck: false });
    expect(await write('stuck.3@example.com')).not.toBe(shows);
    await admin(emu, 'POST', '/_emulator/clock', { stuck: true });
    await admin(emu, 'POST', '/_emulator/reset');
    const a = await write('after.reset.1@example.com');
    expect(await write('after.reset.2@example.com')).not.toBe(a);
  });

  it('deletes a contact outside the API, then re-seeds on reset', async () => {
    const del = await admin(emu, 'POST', `/_emulator/contacts/${FX.grace.id}/delete`);
    expect(del.json).toMatchObject({ deleted: true, business: 'acme' });
    expectError(await call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.grace.id}`), 404, 'contact_not_found');
    expectError(await admin(emu, 'POST', `/_emulator/contacts/${FX.grace.id}/delete`), 404, 'contact_not_found');
    await call(emu, 'POST', '/v2/contacts', { body: { email: 'temp@example.com' } });
    expect((await admin(emu, 'POST', '/_emulator/reset')).json).toEqual({ reset: true });
    expect((await call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.grace.id}`)).status).toBe(200);
    expectError(await call(emu, 'GET', '/v2/contacts?email=temp@example.com'), 404, 'contact_not_found');
  });

  it('keeps updatedAt strictly increasing after re-seeding', async () => {
    await call(emu, 'POST', '/v2/contacts', { body: { email: FX.ada.email, fields: { city: 'Reseeded' } } });
    const all = emu.store
      .business('acme')
      .contacts.stored()
      .map((c) => c.updatedAt)
      .sort();
    expect(new Set(all).size).toBe(all.length);
    expect(emu.store.business('acme').contacts.get(FX.ada.id)?.updatedAt).toBe(all[all.length - 1]);
  });

  it('reports info, 404 and 405 for admin paths', async () => {
    const info = (await admin(emu, 'GET', '/_emulator/info')).json;
    expect(info.keys).toEqual(DEMO_KEYS);
    expect(info.businesses.map((b: { id: string }) => b.id)).toEqual(['acme', 'basic']);
    expectError(await admin(emu, 'GET', '/_emulator/nope'), 404, 'not_found');
    expectError(await admin(emu, 'PUT', '/_emulator/stats'), 405, 'method_not_allowed');
  });

  it('describeEmulator names the URL, the three keys and an export line', () => {
    const text = describeEmulator(emu);
    expect(text).toContain(emu.url);
    for (const key of Object.values(DEMO_KEYS)) expect(text).toContain(key);
    expect(text).toContain(`export CNV_BASE_URL=${emu.url} CNV_API_KEY=${DEMO_KEYS.full}`);
  });

  it('closes promptly even with idle keep-alive connections', async () => {
    const other = await startEmulator({ port: 0, quiet: true });
    await call(other, 'GET', '/v2/contacts?email=ada@example.com');
    const t0 = performance.now();
    await other.close();
    expect(performance.now() - t0).toBeLessThan(1000);
    await expect(fetch(`${other.url}/_emulator/info`)).rejects.toThrow();
  });
});

/** A raw request (fetch cannot set Host), answered as status and parsed JSON. */
function raw(
  emu: Emulator,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('admin routes refuse what a web page could send', () => {
  it('a POST with a text/plain (or no) content type is 415, and changes nothing', async () => {
    await admin(emu, 'DELETE', '/_emulator/faults');
    const plain = await raw(
      emu,
      'POST',
      '/_emulator/faults',
      { 'content-type': 'text/plain' },
      JSON.stringify({ failNext: 5 }),
    );
    expect(plain.status).toBe(415);
    expect(plain.json.error.code).toBe('unsupported_media_type');
    const none = await raw(emu, 'POST', '/_emulator/reset', {});
    expect(none.status).toBe(415);
    expect((await admin(emu, 'GET', '/_emulator/faults')).json.failNext).toBe(0);
  });

  it('a Host that is not loopback (a DNS-rebound name) is 403, for reads too', async () => {
    for (const [method, path] of [
      ['GET', '/_emulator/info'],
      ['POST', '/_emulator/reset'],
    ]) {
      const res = await raw(emu, method, path, { host: 'evil.example:4010', 'content-type': 'application/json' });
      expect(res.status, path).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'forbidden_host' });
    }
    expect((await raw(emu, 'GET', '/_emulator/stats', { host: `localhost:${emu.port}` })).status).toBe(200);
    expect((await raw(emu, 'GET', '/_emulator/stats', { host: '[::1]' })).status).toBe(200);
  });

  it('the API itself is not affected by the admin guard', async () => {
    const res = await raw(emu, 'GET', '/v2/campaigns?limit=1', { host: 'api.example', 'x-api-key': DEMO_KEYS.full });
    expect(res.status).toBe(200);
  });
});
