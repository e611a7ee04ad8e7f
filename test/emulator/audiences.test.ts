import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_AUDIENCES as AU, FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(() => emu.close());
beforeEach(async () => {
  await admin(emu, 'POST', '/_emulator/reset');
});

const path = (id: string, batch = false) => `/v2/audiences/${id}/contacts${batch ? '/batch' : ''}`;
const members = async (id: string): Promise<string[]> =>
  (await admin(emu, 'GET', `/_emulator/state/audiences/${id}`)).json.memberIds;
const UNKNOWN = 'c1000000-0000-4000-8000-00000000ffff';

describe('POST /v2/audiences/:id/contacts', () => {
  it('adds a contact once; adding again answers added: false', async () => {
    const first = await call(emu, 'POST', path(AU.followUp.id), { body: { email: FX.grace.email } });
    expect(first.json).toEqual({ data: { added: true, cnvContactId: FX.grace.id } });
    const again = await call(emu, 'POST', path(AU.followUp.id), { body: { userId: 'user-grace' } });
    expect(again.json).toEqual({ data: { added: false, cnvContactId: FX.grace.id } });
    expect(await members(AU.followUp.id)).toEqual([FX.grace.id]);
  });

  it('answers missing_identifier, invalid_email, contact_not_found and audience_not_found', async () => {
    expectError(await call(emu, 'POST', path(AU.followUp.id), { body: {} }), 400, 'missing_identifier');
    expectError(await call(emu, 'POST', path(AU.followUp.id), { body: { email: 'nope' } }), 400, 'invalid_email');
    expectError(await call(emu, 'POST', path(AU.followUp.id), { body: { cnvContactId: 'x' } }), 400, 'invalid_request');
    expectError(
      await call(emu, 'POST', path(AU.followUp.id), { body: { email: 'nobody@example.com' } }),
      404,
      'contact_not_found',
    );
    expectError(await call(emu, 'POST', path(UNKNOWN), { body: { email: FX.ada.email } }), 404, 'audience_not_found');
  });
});

describe('DELETE /v2/audiences/:id/contacts', () => {
  it('removes the membership in that audience only, and keeps the contact', async () => {
    const res = await call(emu, 'DELETE', path(AU.newsletter.id), { body: { email: FX.ada.email } });
    expect(res.json).toEqual({ data: { removed: true, cnvContactId: FX.ada.id } });
    expect(await members(AU.newsletter.id)).toEqual([FX.grace.id]);
    expect(await members(AU.vip.id)).toEqual([FX.ada.id]);
    expect((await admin(emu, 'GET', `/_emulator/state/contacts?id=${FX.ada.id}`)).json).toHaveLength(1);
  });

  it('is a success when the membership or the contact is absent', async () => {
    const notMember = await call(emu, 'DELETE', path(AU.followUp.id), { body: { cnvContactId: FX.ada.id } });
    expect(notMember.json).toEqual({ data: { removed: false, cnvContactId: FX.ada.id } });
    const noContact = await call(emu, 'DELETE', path(AU.followUp.id), { body: { email: 'ghost@example.com' } });
    expect(noContact.json).toEqual({ data: { removed: false, cnvContactId: null } });
  });

  it('resolves cnvContactId, then userId, then email', async () => {
    const res = await call(emu, 'DELETE', path(AU.newsletter.id), {
      body: { userId: 'user-grace', email: FX.ada.email },
    });
    expect(res.json.data).toEqual({ removed: true, cnvContactId: FX.grace.id });
  });

  it('needs the audience edit permission', async () => {
    expectError(
      await call(emu, 'DELETE', path(AU.newsletter.id), { body: { email: FX.ada.email }, key: emu.keys.limited }),
      403,
      'forbidden',
    );
    expect(await members(AU.newsletter.id)).toContain(FX.ada.id);
  });

  it('answers audience_not_found and missing_identifier', async () => {
    expectError(await call(emu, 'DELETE', path(UNKNOWN), { body: { email: FX.ada.email } }), 404, 'audience_not_found');
    expectError(await call(emu, 'DELETE', path(AU.newsletter.id), { body: {} }), 400, 'missing_identifier');
  });
});

describe('POST /v2/audiences/:id/contacts/batch', () => {
  it('processes items independently, one result per item in order', async () => {
    const res = await call(emu, 'POST', path(AU.followUp.id, true), {
      body: {
        contacts: [
          { email: FX.grace.email },
          { email: 'nobody@example.com' },
          { cnvContactId: FX.linus.id, email: FX.ada.email },
          { email: 'bad-email' },
          {},
          'not an object',
          { userId: 'user-ada' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.results).toEqual([
      { added: true, cnvContactId: FX.grace.id },
      { added: false, error: 'contact_not_found', message: expect.any(String) },
      { added: true, cnvContactId: FX.linus.id },
      { added: false, error: 'invalid_email', message: expect.any(String) },
      { added: false, error: 'missing_identifier', message: expect.any(String) },
      { added: false, error: 'invalid_request', message: expect.any(String) },
      { added: true, cnvContactId: FX.ada.id },
    ]);
    expect(await members(AU.followUp.id)).toEqual([FX.grace.id, FX.linus.id, FX.ada.id]);
  });

  it('an existing member is a success (added: true) and is not duplicated', async () => {
    const res = await call(emu, 'POST', path(AU.newsletter.id, true), {
      body: { contacts: [{ email: FX.ada.email }, { email: FX.ada.email }] },
    });
    expect(res.json.data.results.map((r: { added: boolean }) => r.added)).toEqual([true, true]);
    expect(await members(AU.newsletter.id)).toEqual([FX.ada.id, FX.grace.id]);
  });

  it('accepts 1 to 1000 contacts, else 400 invalid_request', async () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ email: FX.grace.email }));
    expect((await call(emu, 'POST', path(AU.followUp.id, true), { body: { contacts: many(1000) } })).status).toBe(200);
    expectError(
      await call(emu, 'POST', path(AU.followUp.id, true), { body: { contacts: many(1001) } }),
      400,
      'invalid_request',
    );
    expectError(
      await call(emu, 'POST', path(AU.followUp.id, true), { body: { contacts: [] } }),
      400,
      'invalid_request',
    );
    expectError(
      await call(emu, 'POST', path(AU.followUp.id, true), { body: { contacts: 'x' } }),
      400,
      'invalid_request',
    );
  });

  it('is gated (basic key: 403 export_not_enabled) and answers audience_not_found', async () => {
    expectError(
      await call(emu, 'POST', path(AU.followUp.id, true), {
        body: { contacts: [{ email: 'a@b.co' }] },
        key: emu.keys.basic,
      }),
      403,
      'export_not_enabled',
    );
    expectError(
      await call(emu, 'POST', path(UNKNOWN, true), { body: { contacts: [{ email: FX.ada.email }] } }),
      404,
      'audience_not_found',
    );
  });
});
