import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS, FIXTURE_CUSTOM_OBJECT as CO, FIXTURE_RECORDS } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});

const PATH = `/v2/custom-objects/${CO.id}/records/batch`;
const batch = (records: unknown, key?: string, path = PATH) => call(emu, 'POST', path, { body: { records }, key });
const stateOf = async (clientDedupKey: string) =>
  (
    await admin(
      emu,
      'GET',
      `/_emulator/state/records?customObjectId=${CO.id}&clientDedupKey=${encodeURIComponent(clientDedupKey)}`,
    )
  ).json[0];

describe('POST /v2/custom-objects/:id/records/batch', () => {
  it('creates then updates records, one result per input in input order, with counts', async () => {
    const first = await batch([
      {
        clientDedupKey: 'r-1',
        fields: {
          planName: 'Basic',
          seats: 1,
          autoRenew: true,
          startDate: '2025-01-31',
          renewedAt: '2025-02-01T10:00:00Z',
        },
      },
      { clientDedupKey: 'r-2', fields: { planName: 'Pro' } },
    ]);
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ processed: 2, succeeded: 2, failed: 0 });
    expect(first.json.data.results).toEqual([
      { success: true, id: expect.any(String), clientDedupKey: 'r-1', operation: 'CREATE' },
      { success: true, id: expect.any(String), clientDedupKey: 'r-2', operation: 'CREATE' },
    ]);
    const second = await batch([
      { clientDedupKey: 'r-2', fields: { seats: 3 } },
      { clientDedupKey: 'r-1', fields: { seats: null } },
    ]);
    expect(second.json.data.results.map((r: any) => [r.clientDedupKey, r.operation])).toEqual([
      ['r-2', 'UPDATE'],
      ['r-1', 'UPDATE'],
    ]);
    expect(second.json.data.results[1].id).toBe(first.json.data.results[0].id);
    expect((await stateOf('r-2')).fields).toEqual({ planName: 'Pro', seats: 3 });
    // null clears; fields not sent are kept
    expect((await stateOf('r-1')).fields).toEqual({
      planName: 'Basic',
      autoRenew: true,
      startDate: '2025-01-31',
      renewedAt: '2025-02-01T10:00:00Z',
    });
  });

  it('applies repeated keys inside one batch sequentially, in order', async () => {
    const res = await batch([
      { clientDedupKey: 'dup', fields: { seats: 1, planName: 'A' } },
      { clientDedupKey: 'dup', fields: { seats: 2 } },
      { clientDedupKey: 'dup', fields: { seats: 3, planName: 'C' } },
    ]);
    expect(res.json.data.results.map((r: any) => r.operation)).toEqual(['CREATE', 'UPDATE', 'UPDATE']);
    expect(new Set(res.json.data.results.map((r: any) => r.id)).size).toBe(1);
    expect((await stateOf('dup')).fields).toEqual({ seats: 3, planName: 'C' });
  });

  it('fails single records (unknown field, read-only, bad value, reverse field, no key) while the rest succeed', async () => {
    const res = await batch([
      { clientDedupKey: 'ok-1', fields: { seats: 4 } },
      { clientDedupKey: 'bad-1', fields: { nope: 1 } },
      { clientDedupKey: 'bad-2', fields: { syncedAt: '2025-01-01T00:00:00Z' } },
      { clientDedupKey: 'bad-3', fields: { seats: '4' } },
      { clientDedupKey: 'bad-4', fields: { startDate: '2025-02-30' } },
      { clientDedupKey: 'bad-5', fields: { childSubscriptions: 'x' } },
      { fields: { seats: 1 } },
      'not an object',
      { clientDedupKey: 'bad-6', fields: [] },
      { clientDedupKey: 'ok-2' },
    ]);
    const data = res.json.data;
    expect(data).toMatchObject({ processed: 10, succeeded: 2, failed: 8 });
    const r = data.results;
    expect(r[0]).toMatchObject({ success: true, clientDedupKey: 'ok-1' });
    expect(r[1]).toEqual({
      success: false,
      clientDedupKey: 'bad-1',
      error: 'invalid_field',
      message: expect.stringMatching(/nope/),
    });
    expect(r[2]).toMatchObject({ success: false, error: 'invalid_field', message: expect.stringMatching(/read-only/) });
    expect(r[3]).toMatchObject({ success: false, error: 'invalid_field', message: expect.stringMatching(/NUMBER/) });
    expect(r[4]).toMatchObject({ success: false, error: 'invalid_field' });
    expect(r[5]).toMatchObject({ success: false, error: 'invalid_field', message: expect.stringMatching(/read-only/) });
    expect(r[6]).toMatchObject({ success: false, clientDedupKey: null, error: 'invalid_request' });
    expect(r[7]).toMatchObject({ success: false, clientDedupKey: null, error: 'invalid_request' });
    expect(r[8]).toMatchObject({ success: false, clientDedupKey: 'bad-6', error: 'invalid_request' });
    expect(r[9]).toMatchObject({ success: true, clientDedupKey: 'ok-2', operation: 'CREATE' });
    expect(await stateOf('bad-1')).toBeUndefined();
  });

  it('resolves contact relationships by userId or email and leaves a missing one pending, creating no contact', async () => {
    const contactsBefore = (await admin(emu, 'GET', '/_emulator/info')).json.businesses[0].contacts;
    const res = await batch([
      { clientDedupKey: 'rel-1', fields: { subscriber: 'user-grace' } },
      { clientDedupKey: 'rel-2', fields: { subscriber: 'ADA@example.com' } },
      { clientDedupKey: 'rel-3', fields: { subscriber: 'nobody@example.com', seats: 2 } },
    ]);
    const [a, b, c] = res.json.data.results;
    expect(a).toEqual({ success: true, id: expect.any(String), clientDedupKey: 'rel-1', operation: 'CREATE' });
    expect(b.pendingRelationships).toBeUndefined();
    expect(c).toMatchObject({ success: true, operation: 'CREATE', pendingRelationships: ['subscriber'] });
    expect((await stateOf('rel-1')).relationships).toEqual({ subscriber: FIXTURE_CONTACTS.grace.id });
    expect((await stateOf('rel-2')).relationships).toEqual({ subscriber: FIXTURE_CONTACTS.ada.id });
    const pending = await stateOf('rel-3');
    expect(pending).toMatchObject({
      fields: { subscriber: 'nobody@example.com', seats: 2 },
      pendingRelationships: { subscriber: 'nobody@example.com' },
      relationships: {},
    });
    expect((await admin(emu, 'GET', '/_emulator/info')).json.businesses[0].contacts).toBe(contactsBefore);
    expect((await admin(emu, 'GET', '/_emulator/state/contacts?email=nobody@example.com')).json).toEqual([]);

    // Writing a value that resolves clears the pending state.
    const fixed = await batch([{ clientDedupKey: 'rel-3', fields: { subscriber: 'user-ada' } }]);
    expect(fixed.json.data.results[0].pendingRelationships).toBeUndefined();
    expect((await stateOf('rel-3')).pendingRelationships).toEqual({});
  });

  it('resolves record relationships by clientDedupKey, including a record created earlier in the same batch', async () => {
    const res = await batch([
      { clientDedupKey: 'child-1', fields: { parentSubscription: 'parent-1' } },
      { clientDedupKey: 'parent-1', fields: { planName: 'Parent' } },
      { clientDedupKey: 'child-2', fields: { parentSubscription: 'parent-1' } },
    ]);
    const [c1, p1, c2] = res.json.data.results;
    expect(c1.pendingRelationships).toEqual(['parentSubscription']);
    expect(c2.pendingRelationships).toBeUndefined();
    expect((await stateOf('child-2')).relationships).toEqual({ parentSubscription: p1.id });
    expect(await stateOf('missing-parent')).toBeUndefined();
  });

  it('answers 400 invalid_request outside 1..200 records or without an array', async () => {
    expectError(await batch([]), 400, 'invalid_request');
    const tooMany = Array.from({ length: 201 }, (_, i) => ({ clientDedupKey: `many-${i}`, fields: {} }));
    expectError(await batch(tooMany), 400, 'invalid_request');
    expectError(await call(emu, 'POST', PATH, { body: {} }), 400, 'invalid_request');
    expect(await stateOf('many-0')).toBeUndefined();
    const max = Array.from({ length: 200 }, (_, i) => ({ clientDedupKey: `max-${i}`, fields: { seats: i } }));
    expect((await batch(max)).json.data).toMatchObject({ processed: 200, succeeded: 200 });
  });

  it('checks permission, enablement and the custom object', async () => {
    const one = [{ clientDedupKey: 'perm', fields: {} }];
    expectError(await batch(one, emu.keys.limited), 403, 'forbidden');
    expectError(await batch(one, emu.keys.basic), 403, 'forbidden');
    expectError(
      await batch(one, undefined, '/v2/custom-objects/c0000000-0000-4000-8000-0000000000ff/records/batch'),
      404,
      'custom_object_not_found',
    );
    expectError(await batch(one, undefined, '/v2/custom-objects/nope/records/batch'), 404, 'custom_object_not_found');
    expect(await stateOf('perm')).toBeUndefined();
  });
});

describe('custom object seed and admin state', () => {
  it('seeds the Subscription object and its fixture records with resolved relationships', async () => {
    const objects = (await admin(emu, 'GET', '/_emulator/state/custom-objects')).json;
    expect(objects).toEqual([expect.objectContaining({ id: CO.id, key: CO.key, name: CO.name })]);
    const grace = await stateOf(FIXTURE_RECORDS.grace.clientDedupKey);
    expect(grace).toMatchObject({
      id: FIXTURE_RECORDS.grace.id,
      fields: FIXTURE_RECORDS.grace.fields,
      relationships: { subscriber: FIXTURE_CONTACTS.grace.id, parentSubscription: FIXTURE_RECORDS.ada.id },
      pendingRelationships: {},
    });
    expect((await admin(emu, 'GET', '/_emulator/state/custom-objects?business=basic')).json).toEqual([]);
  });
});
