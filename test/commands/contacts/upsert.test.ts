import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/contacts/upsert.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `contacts upsert`'s run alone, for one contact (the --file run is tested against the emulator).
const ID = 'a1000000-0000-4000-8000-000000000001';
const FIELDS = '/v2/fields?objectType=CONTACT&limit=1000';
const definitions = ok({
  fields: [
    { key: 'city', label: 'City', objectType: 'CONTACT', dataType: 'STRING' },
    { key: 'score', label: 'Score', objectType: 'CONTACT', dataType: 'NUMBER' },
  ],
}, null);

const f = useFakeContext();

describe('contacts upsert (one contact): run', () => {
  it('--email --status: one POST /v2/contacts with that body, its answer as the record; no definitions read', async () => {
    f.api.on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: true }));
    const result = await run(f.ctx, { args: [], opts: { email: 'ada@example.com', status: 'SUBSCRIBED' } });
    expect(result).toEqual({ kind: 'record', data: { cnvContactId: ID, contactCreated: true } });
    expect(f.api.requests.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/v2/contacts', { email: 'ada@example.com', subscriptionStatus: 'SUBSCRIBED' }]]);
  });

  it('--field values are converted by the definitions (read first): a NUMBER field gets 42, a STRING one "10115"', async () => {
    f.api.on('GET', FIELDS, definitions).on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: false }));
    await run(f.ctx, { args: [], opts: { email: 'ada@example.com', field: [['score', '42'], ['city', '10115']] } });
    expect(f.api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${FIELDS}`, 'POST /v2/contacts']);
    expect(f.api.requests[1].body).toEqual({ email: 'ada@example.com', fields: { score: 42, city: '10115' } });
  });

  it('a --field key no field has: exit 2 naming the nearest key, nothing upserted', async () => {
    f.api.on('GET', FIELDS, definitions);
    await expect(run(f.ctx, { args: [], opts: { email: 'ada@example.com', field: [['ctiy', 'Oslo']] } })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('city') });
  });

  it('--contact-id with --email: the id finds the contact and the email becomes its address, said on stderr', async () => {
    f.api.on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: false }));
    await run(f.ctx, { args: [], opts: { contactId: ID, email: 'new@example.com' } });
    expect(f.api.requests[0].body).toEqual({ cnvContactId: ID, email: 'new@example.com' });
    expect(f.stderr()).toBe('warning: --contact-id finds the contact; --email does not look it up but sets its address to new@example.com\n');
  });

  it('a 400 of the API is exit 3 with its code and message, not retried', async () => {
    f.api.on('POST', '/v2/contacts', apiError(400, 'invalid_email', 'email is not valid'));
    await expect(run(f.ctx, { args: [], opts: { email: 'ada@example.com' } })).rejects.toMatchObject({ exitCode: 3, code: 'invalid_email', message: 'email is not valid' });
    expect(f.clock.sleeps).toEqual([]);
  });

  it('no identifier: exit 2 before any request', async () => {
    await expect(run(f.ctx, { args: [], opts: { status: 'SUBSCRIBED' } })).rejects.toMatchObject({ exitCode: 2, code: 'missing_identifier' });
  });
});
