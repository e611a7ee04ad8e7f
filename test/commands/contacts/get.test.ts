import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/contacts/get.js';
import { FIXTURE_CONTACTS } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `contacts get`'s run alone: a fake context whose http() answers from the stubs below.
const ID = 'a1000000-0000-4000-8000-000000000001';
const CONTACT = {
  cnvContactId: ID,
  email: 'ada@example.com',
  subscriptionStatus: 'SUBSCRIBED',
  fields: { city: 'Oslo' },
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
};

const f = useFakeContext();

describe('contacts get: run', () => {
  it('--email: GET /v2/contacts?email=..., the contact as the record', async () => {
    f.api.on('GET', '/v2/contacts?email=ada%40example.com', ok({ contact: CONTACT }));
    expect(await run(f.ctx, { args: [], opts: { email: 'ada@example.com' } })).toEqual({
      kind: 'record',
      data: CONTACT,
    });
    expect(f.api.requests[0].headers['x-api-key']).toBe('sk_live_fake_0123456789abcdef');
    expect(f.stderr()).toBe('');
  });

  it('--contact-id wins over --email: only the id is sent, and the email is said to be ignored', async () => {
    f.api.on('GET', `/v2/contacts?cnvContactId=${ID}`, ok({ contact: CONTACT }));
    const result = await run(f.ctx, { args: [], opts: { contactId: ID, email: 'other@example.com' } });
    expect(result).toMatchObject({ kind: 'record', data: { cnvContactId: ID } });
    expect(f.stderr()).toBe(
      'warning: --email is ignored: the API finds the contact by --contact-id alone (precedence --contact-id, --email); if they name different contacts, --contact-id wins\n',
    );
  });

  it('no match, as a 404 or as an empty answer: ApiError contact_not_found, exit 5', async () => {
    f.api.on(
      'GET',
      '/v2/contacts?email=nobody%40example.com',
      apiError(404, 'contact_not_found', 'no such contact'),
      ok({ contact: null }),
    );
    await expect(run(f.ctx, { args: [], opts: { email: 'nobody@example.com' } })).rejects.toMatchObject({
      exitCode: 5,
      code: 'contact_not_found',
      message: 'no such contact',
    });
    await expect(run(f.ctx, { args: [], opts: { email: 'nobody@example.com' } })).rejects.toMatchObject({
      exitCode: 5,
      code: 'contact_not_found',
      message: 'no contact matches email nobody@example.com',
    });
  });

  it('a 503 is retried after the backoff (no real wait), then the contact', async () => {
    f.api.on(
      'GET',
      '/v2/contacts?email=ada%40example.com',
      apiError(503, 'unavailable', 'try later'),
      ok({ contact: CONTACT }),
    );
    expect(await run(f.ctx, { args: [], opts: { email: 'ada@example.com' } })).toMatchObject({ data: CONTACT });
    expect(f.clock.sleeps).toEqual([250]);
  });

  it('no identifier, or a malformed one: a usage error (exit 2) before any request', async () => {
    await expect(run(f.ctx, { args: [], opts: {} })).rejects.toMatchObject({ exitCode: 2, code: 'missing_identifier' });
    await expect(run(f.ctx, { args: [], opts: { contactId: 'not-a-uuid' } })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^--contact-id: /),
    });
    expect(f.api.requests).toEqual([]);
  });
});

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);

describe('cnv contacts get (in-process)', () => {
  it('returns the most recently updated contact when several share an email', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'shared@example.com'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout).cnvContactId).toBe(FIXTURE_CONTACTS.sharedNewer.id);
  });

  it('shows system-managed statuses as they come', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.bounced.email], { env: fx.env });
    expect(json(res.stdout).subscriptionStatus).toBe('BOUNCED');
  });

  it('exits 5 when no contact matches', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'nobody@example.com'], { env: fx.env });
    expect(res.exitCode).toBe(5);
    expect(res.stderr).toMatch(/contact_not_found/);
  });

  it('exits 4 with a hint when the endpoint is not enabled for the key', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'basic.user@example.com'], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.basic },
    });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: export_not_enabled: /m);
    expect(res.stderr).toMatch(/^hint: .*not enabled/m);
  });

  it('exits 2 without an identifier', async () => {
    const res = await cnvInProcess(['contacts', 'get'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--contact-id, --email/);
  });
});
