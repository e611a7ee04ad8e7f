import { checkUpsertRow } from '../../../src/contacts/upsert-row.js';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/contacts/upsert.js';
import { FIXTURE_CONTACTS } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `contacts upsert`'s run alone, for one contact (the --file run is tested against the emulator).
const ID = 'a1000000-0000-4000-8000-000000000001';
const FIELDS = '/v2/fields?objectType=CONTACT&limit=1000';
const definitions = ok(
  {
    fields: [
      { key: 'city', label: 'City', objectType: 'CONTACT', dataType: 'STRING' },
      { key: 'score', label: 'Score', objectType: 'CONTACT', dataType: 'NUMBER' },
    ],
  },
  null,
);

const f = useFakeContext();

describe('contacts upsert (one contact): run', () => {
  it('--email --status: one POST /v2/contacts with that body, its answer as the record; no definitions read', async () => {
    f.api.on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: true }));
    const result = await run(f.ctx, { args: [], opts: { email: 'ada@example.com', status: 'SUBSCRIBED' } });
    expect(result).toEqual({ kind: 'record', data: { cnvContactId: ID, contactCreated: true } });
    expect(f.api.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v2/contacts', { email: 'ada@example.com', subscriptionStatus: 'SUBSCRIBED' }],
    ]);
  });

  it('--field values are converted by the definitions (read first): a NUMBER field gets 42, a STRING one "10115"', async () => {
    f.api.on('GET', FIELDS, definitions).on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: false }));
    await run(f.ctx, {
      args: [],
      opts: {
        email: 'ada@example.com',
        field: [
          ['score', '42'],
          ['city', '10115'],
        ],
      },
    });
    expect(f.api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${FIELDS}`, 'POST /v2/contacts']);
    expect(f.api.requests[1].body).toEqual({ email: 'ada@example.com', fields: { score: 42, city: '10115' } });
  });

  it('a --field key no field has: exit 2 naming the nearest key, nothing upserted', async () => {
    f.api.on('GET', FIELDS, definitions);
    await expect(
      run(f.ctx, { args: [], opts: { email: 'ada@example.com', field: [['ctiy', 'Oslo']] } }),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('city') });
  });

  it('the flags are checked by the rules a file row is checked by (one schema): the same body as the row, the verdict naming the flag', async () => {
    const row = checkUpsertRow({ email: '  ada@example.com ', cnvContactId: ` ${ID} ` }, '');
    expect(row.invalid).toBeUndefined();
    f.api.on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: false }));
    await run(f.ctx, { args: [], opts: { contactId: ` ${ID} `, email: '  ada@example.com ' } });
    expect(f.api.requests[0].body).toEqual(row.invalid ? undefined : row.payload);
    const bad = checkUpsertRow({ email: 'ada@example.com', cnvContactId: 'nope' }, '');
    expect(bad.invalid?.message).toMatch(/^cnvContactId: expected a UUID/);
    await expect(run(f.ctx, { args: [], opts: { contactId: 'nope', email: 'ada@example.com' } })).rejects.toMatchObject(
      {
        exitCode: 2,
        code: bad.invalid?.error,
        message: bad.invalid?.message.replace(/^cnvContactId:/, '--contact-id:'),
      },
    );
  });

  it('--contact-id with --email: the id finds the contact and the email becomes its address, said on stderr', async () => {
    f.api.on('POST', '/v2/contacts', ok({ cnvContactId: ID, contactCreated: false }));
    await run(f.ctx, { args: [], opts: { contactId: ID, email: 'new@example.com' } });
    expect(f.api.requests[0].body).toEqual({ cnvContactId: ID, email: 'new@example.com' });
    expect(f.stderr()).toBe(
      'warning: --contact-id finds the contact; --email does not look it up but sets its address to new@example.com\n',
    );
  });

  it('a 400 of the API is exit 3 with its code and message, not retried', async () => {
    f.api.on('POST', '/v2/contacts', apiError(400, 'invalid_email', 'email is not valid'));
    await expect(run(f.ctx, { args: [], opts: { email: 'ada@example.com' } })).rejects.toMatchObject({
      exitCode: 3,
      code: 'invalid_email',
      message: 'email is not valid',
    });
    expect(f.clock.sleeps).toEqual([]);
  });

  it('no identifier: exit 2 before any request', async () => {
    await expect(run(f.ctx, { args: [], opts: { status: 'SUBSCRIBED' } })).rejects.toMatchObject({
      exitCode: 2,
      code: 'missing_identifier',
    });
  });
});

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);

describe('cnv contacts upsert (in-process)', () => {
  it('creates a contact, then updates it, printing the API data as JSON when not on a TTY', async () => {
    const created = await cnvInProcess(
      [
        'contacts',
        'upsert',
        '--email',
        'new.person@example.com',
        '--status',
        'subscribed',
        '--field',
        'firstName=New',
        '--field',
        'score=7',
      ],
      { env: fx.env },
    );
    expect(created.exitCode).toBe(0);
    const data = json(created.stdout);
    expect(data).toEqual({ cnvContactId: expect.any(String), contactCreated: true });
    expect(created.stderr).toBe('');

    const updated = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'new.person@example.com', '--field', 'city=Paris'],
      { env: fx.env },
    );
    expect(json(updated.stdout)).toEqual({ cnvContactId: data.cnvContactId, contactCreated: false });

    const got = json(
      (await cnvInProcess(['contacts', 'get', '--email', 'new.person@example.com'], { env: fx.env })).stdout,
    );
    expect(got).toMatchObject({
      cnvContactId: data.cnvContactId,
      subscriptionStatus: 'SUBSCRIBED',
      fields: { firstName: 'New', score: 7, city: 'Paris' },
    });
  });

  it('with --contact-id and --email, updates the address of that contact', async () => {
    const { stdout } = await cnvInProcess(['contacts', 'upsert', '--email', 'rename.me@example.com'], { env: fx.env });
    const id = json(stdout).cnvContactId;
    const res = await cnvInProcess(['contacts', 'upsert', '--contact-id', id, '--email', 'renamed@example.com'], {
      env: fx.env,
    });
    expect(json(res.stdout)).toEqual({ cnvContactId: id, contactCreated: false });
    const got = json((await cnvInProcess(['contacts', 'get', '--contact-id', id], { env: fx.env })).stdout);
    expect(got.email).toBe('renamed@example.com');
  });

  it('--update-only never creates: exit 5 with contact_not_found', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'nobody.here@example.com', '--update-only'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(5);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: contact_not_found: /m);
  });

  it('sends --set fields the spec does not name (preserveExisting keeps non-empty values)', async () => {
    await cnvInProcess(['contacts', 'upsert', '--email', 'keep@example.com', '--field', 'city=Rome'], { env: fx.env });
    await cnvInProcess(
      [
        'contacts',
        'upsert',
        '--email',
        'keep@example.com',
        '--field',
        'city=Oslo',
        '--field',
        'firstName=Kim',
        '--set',
        'preserveExisting=true',
      ],
      { env: fx.env },
    );
    const got = json((await cnvInProcess(['contacts', 'get', '--email', 'keep@example.com'], { env: fx.env })).stdout);
    expect(got.fields).toMatchObject({ city: 'Rome', firstName: 'Kim' });
  });

  it.each([
    [['--status', 'SUBSCRIBED'], /missing_identifier: identify the contact with --email or --contact-id/],
    [['--email', 'not-an-email'], /invalid_email: --email: not a valid email address/],
    [
      ['--email', 'a@example.com', '--status', 'BOUNCED'],
      /--status.*expected one of SUBSCRIBED, UNSUBSCRIBED, NO_STATUS/,
    ],
    [['--contact-id', 'nope'], /--contact-id: expected a UUID/],
    [['--email', 'a@example.com', '--field', 'novalue'], /--field.*expected key=value/],
    [['--email', 'a@example.com', '--set', 'email=x@y.z'], /--set email: use the dedicated flag/],
  ])('refuses bad input locally with exit 2 and sends nothing: %j', async (args, message) => {
    await fx.resetStats();
    const res = await cnvInProcess(['contacts', 'upsert', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
    expect((await fx.stats()).total).toBe(0);
  });

  it('reports API rejections with exit 3 and the code', async () => {
    // -F sends the value unchecked: the API refuses a word in a NUMBER field.
    const res = await cnvInProcess(['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '-F', 'score=many'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/^error: invalid_field: .*score/m);
  });

  it("a read-only or unknown field key is refused before sending (exit 2), as a file's column is", async () => {
    await fx.resetStats();
    const readOnly = await cnvInProcess(
      ['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '--field', 'leadScore=5'],
      { env: fx.env },
    );
    expect(readOnly.exitCode).toBe(2);
    expect(readOnly.stderr).toMatch(
      /^error: invalid_field: --field leadScore: the CONTACT field "leadScore" is read-only$/m,
    );
    const unknown = await cnvInProcess(
      ['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '--company-field', 'nope=1'],
      { env: fx.env },
    );
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown_field: --company-field "nope": no COMPANY field has this key$/m);
    expect((await fx.stats()).byRoute['POST /v2/contacts'] ?? 0).toBe(0);
  });

  it('with --json, the error is also one JSON line on stderr', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'nobody.json@example.com', '--update-only', '--json'],
      { env: fx.env },
    );
    const line = res.stderr.trim().split('\n').at(-1)!;
    expect(json(line)).toEqual({
      error: expect.objectContaining({ code: 'contact_not_found', status: 404, exitCode: 5 }),
    });
  });
});

// For the field values below, the emulator's demo business: city STRING, score NUMBER, vip BOOLEAN; company employees NUMBER.

const fieldsOf = async (email: string) => {
  const got = await cnvInProcess(['contacts', 'get', '--email', email], { env: fx.env });
  return JSON.parse(got.stdout).fields as Record<string, unknown>;
};

describe('cnv contacts upsert field values (in-process)', () => {
  it('--field city=10115 stores the string "10115" in a STRING field, a NUMBER field gets a number', async () => {
    const res = await cnvInProcess(
      [
        'contacts',
        'upsert',
        '--email',
        'typed@example.com',
        '--field',
        'city=10115',
        '--field',
        'score=42',
        '--field',
        'vip=no',
      ],
      { env: fx.env },
    );
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('typed@example.com')).toMatchObject({ city: '10115', score: 42, vip: false });
  });

  it('-f keeps a string, -F types it, --company-field is converted too', async () => {
    const res = await cnvInProcess(
      [
        'contacts',
        'upsert',
        '--email',
        'split@example.com',
        '-f',
        'city=10115',
        '-F',
        'score=7',
        '--company-field',
        'employees=12',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('split@example.com')).toMatchObject({ city: '10115', score: 7 });
    // -F sends what it is told: a number to a STRING field is the API's invalid_field (exit 3).
    const typed = await cnvInProcess(['contacts', 'upsert', '--email', 'split@example.com', '-F', 'city=10115'], {
      env: fx.env,
    });
    expect(typed.exitCode).toBe(3);
    expect(typed.stderr).toContain('invalid_field');
  });

  it('a value that does not fit its field is exit 2 and nothing is sent', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'never.sent@example.com', '--field', 'score=abc'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('--field score: field "score" (NUMBER): "abc" is not a number');
    expect(
      (await cnvInProcess(['contacts', 'get', '--email', 'never.sent@example.com'], { env: fx.env })).exitCode,
    ).toBe(5);
  });

  it('--file applies converted --field values to every row', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--field', 'city=01067'], {
      env: fx.env,
      input: 'email\nrow.one@example.com\n',
    });
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('row.one@example.com')).toMatchObject({ city: '01067' });
  });
});
