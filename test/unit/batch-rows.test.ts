import { describe, expect, it } from 'vitest';
import { prepareIdentifierRow } from '../../src/batch/contact-batch-add.js';
import { InvalidRowError, rowBody } from '../../src/batch/row-body.js';
import { derivedClientEventId, prepareTrackRow } from '../../src/commands/events/track-file.js';
import { prepareUpsertRow } from '../../src/commands/contacts/upsert-file.js';

const csv = (values: Record<string, string>, line = 2) => ({ line, values, textual: true });

describe('rowBody', () => {
  it('a CSV row becomes a body: dotted columns nest, JSON values parse, text columns stay text, blanks go', () => {
    const body = rowBody(csv({ EMAIL: ' a@example.com ', 'fields.score': '42', 'fields.city': 'Paris', 'fields.zip': '"01234"', updateOnly: 'true', data: '{"a":[1]}', userId: '12345', note: 'null island', empty: ' ' }), {
      known: ['email', 'userId', 'updateOnly', 'fields'],
      text: ['email', 'userId'],
    });
    expect(body).toEqual({ email: 'a@example.com', fields: { score: 42, city: 'Paris', zip: '01234' }, updateOnly: true, data: { a: [1] }, userId: '12345', note: 'null island' });
  });

  it('NDJSON and JSON rows are bodies already', () => {
    expect(rowBody({ line: 1, values: { 'fields.x': 1, email: 'A@b.co' } }, { known: ['email'], text: ['email'] })).toEqual({ 'fields.x': 1, email: 'A@b.co' });
  });

  it('JSON keys match the API names like CSV headers do: any case, spaces, - and _ ignored, common spellings', () => {
    const opts = { known: ['email', 'userId', 'cnvContactId', 'subscriptionStatus'], text: [] };
    expect(rowBody({ line: 1, values: { Email: 'a@b.co', UserId: 'u1', 'Subscription Status': 'x', Other: 1 } }, opts)).toEqual({ email: 'a@b.co', userId: 'u1', subscriptionStatus: 'x', Other: 1 });
    for (const name of ['E-mail', 'Email Address', 'email address', 'EMAIL_ADDRESS', 'e_mail']) {
      expect(rowBody(csv({ [name]: 'a@b.co' }), opts), name).toEqual({ email: 'a@b.co' });
    }
    for (const name of ['User ID', 'user_id', 'USERID', 'user-id']) expect(rowBody({ line: 1, values: { [name]: 'u1' } }, opts), name).toEqual({ userId: 'u1' });
    for (const name of ['Contact ID', 'contact_id', 'cnv_contact_id']) expect(rowBody(csv({ [name]: 'x' }), opts), name).toEqual({ cnvContactId: 'x' });
  });

  it('two columns or keys naming one key, both given, is an invalid row (which was meant is not guessed)', () => {
    const opts = { known: ['email'], text: ['email'] };
    expect(() => rowBody({ line: 1, values: { Email: 'a@b.co', email: 'c@d.co' } }, opts)).toThrow(InvalidRowError);
    expect(() => rowBody(csv({ 'E-mail': 'a@b.co', 'Email Address': 'c@d.co' }), opts)).toThrow(/"Email Address" and another column or key both name email/);
    expect(rowBody(csv({ 'E-mail': 'a@b.co', email: '' }), opts)).toEqual({ email: 'a@b.co' });
  });
});

describe('identifiers as users spell them', () => {
  it('batch adds, upserts and events find the identifier in capitalised JSON keys and alias CSV headers', () => {
    expect(prepareIdentifierRow({ line: 1, values: { Email: 'a@example.com' } })).toEqual({ identifier: 'a@example.com', payload: { email: 'a@example.com' } });
    expect(prepareIdentifierRow({ line: 1, values: { UserId: 'u-2' } })).toEqual({ identifier: 'u-2', payload: { userId: 'u-2' } });
    expect(prepareIdentifierRow(csv({ 'Email Address': 'a@example.com', 'First Name': 'Ann' }))).toEqual({ identifier: 'a@example.com', payload: { email: 'a@example.com' } });
    expect(prepareUpsertRow({ line: 1, values: { Email: 'a@example.com', SubscriptionStatus: 'subscribed' } }, {})).toEqual({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com', subscriptionStatus: 'SUBSCRIBED' },
    });
    expect(prepareTrackRow({ line: 1, values: { Event: 'signup', 'User ID': 'u-1', ClientEventId: 'e1' } }, {})).toEqual({
      identifier: 'e1',
      payload: { event: 'signup', userId: 'u-1', clientEventId: 'e1' },
    });
    expect(prepareTrackRow({ line: 1, index: 0, values: { event: 'x', Mail: 'a@example.com' } }, {})).toMatchObject({
      invalid: { error: 'missing_identifier', message: 'no identifier: give userId (or User ID) or email (or Email Address, E-mail), in any case' },
    });
  });
});

describe('prepareIdentifierRow (batch adds)', () => {
  it('sends the one identifier that takes precedence', () => {
    expect(prepareIdentifierRow(csv({ email: 'a@example.com', userId: 'u1', cnvContactId: '' }))).toEqual({ identifier: 'u1', payload: { userId: 'u1' } });
    const id = 'a0000000-0000-4000-8000-000000000001';
    expect(prepareIdentifierRow(csv({ email: 'a@example.com', cnvcontactid: id }))).toEqual({ identifier: id, payload: { cnvContactId: id } });
  });

  it('gives the API error code of what is wrong', () => {
    expect(prepareIdentifierRow(csv({ email: 'nope' }))).toMatchObject({ identifier: 'nope', invalid: { error: 'invalid_email' } });
    expect(prepareIdentifierRow(csv({ cnvContactId: 'x' }))).toMatchObject({ invalid: { error: 'invalid_request', message: expect.stringMatching(/^cnvContactId: expected a UUID/) } });
    expect(prepareIdentifierRow(csv({ email: '', other: 'x' }))).toEqual({
      identifier: '',
      invalid: { error: 'missing_identifier', message: 'no identifier: give email (or Email Address, E-mail), cnvContactId (or Contact ID) or userId (or User ID), in any case' },
    });
    expect(prepareIdentifierRow({ line: 1, values: { userId: 42 } })).toMatchObject({ invalid: { error: 'invalid_request' } });
  });
});

describe('prepareUpsertRow', () => {
  it('overlays the row on the flag defaults, merging fields; status in any case', () => {
    const prepared = prepareUpsertRow(csv({ email: 'a@example.com', subscriptionStatus: 'subscribed', 'fields.city': 'Rome' }), { fields: { source: 'import', city: 'x' }, updateOnly: true });
    expect(prepared).toEqual({ identifier: 'a@example.com', payload: { email: 'a@example.com', subscriptionStatus: 'SUBSCRIBED', fields: { source: 'import', city: 'Rome' }, updateOnly: true } });
  });

  it('refuses what the API would refuse', () => {
    expect(prepareUpsertRow(csv({ userId: 'u1' }), {})).toMatchObject({ invalid: { error: 'missing_identifier' } });
    expect(prepareUpsertRow(csv({ email: 'a@example.com', subscriptionStatus: 'BOUNCED' }), {})).toMatchObject({ invalid: { error: 'invalid_subscription_status' } });
    expect(prepareUpsertRow({ line: 1, values: { email: 'a@example.com', fields: [1] } }, {})).toMatchObject({ invalid: { error: 'invalid_field' } });
    expect(prepareUpsertRow(csv({ email: 'a@example.com', updateOnly: 'maybe' }), {})).toMatchObject({ invalid: { error: 'invalid_request' } });
  });
});

describe('messages that quote a row', () => {
  it('escape control characters and cut long values', () => {
    const hostile = `\u001b]0;owned\u0007${'y'.repeat(5000)}`;
    const prepared = prepareUpsertRow(csv({ email: hostile }), {});
    expect(prepared).toMatchObject({ invalid: { error: 'invalid_email', message: expect.stringMatching(/^email: expected an email address, got "\\u001b\]0;owned\\u0007y+\.\.\."$/) } });
    expect(prepared.invalid!.message.length).toBeLessThan(120);
    expect(prepareUpsertRow({ line: 1, values: { email: 'a@example.com', updateOnly: { deep: ['\u009b', 'z'.repeat(500)] } } }, {}).invalid!.message).toMatch(/^updateOnly: expected true or false, got \{"deep":\["\\u009b","z+\.\.\.$/);
  });
});

describe('derivedClientEventId', () => {
  it('is stable for the same values at the same place among the rows, whatever the line; differs by place or content', () => {
    const a = derivedClientEventId({ line: 1, index: 2, values: { event: 'x', email: 'a@example.com' } });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedClientEventId({ line: 7, index: 2, values: { email: 'a@example.com', event: 'x' } })).toBe(a);
    // Two identical elements of a JSON array on one line are two events.
    expect(derivedClientEventId({ line: 1, index: 3, values: { event: 'x', email: 'a@example.com' } })).not.toBe(a);
    expect(derivedClientEventId({ line: 1, index: 2, values: { event: 'y', email: 'a@example.com' } })).not.toBe(a);
    expect(() => derivedClientEventId({ line: 1, values: { event: 'x' } })).toThrow(/place/);
  });
});
