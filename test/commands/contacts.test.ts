import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);

describe('cnv contacts upsert (in-process)', () => {
  it('creates a contact, then updates it, printing the API data as JSON when not on a TTY', async () => {
    const created = await cnvInProcess(['contacts', 'upsert', '--email', 'new.person@example.com', '--status', 'subscribed', '--field', 'firstName=New', '--field', 'score=7'], { env: fx.env });
    expect(created.exitCode).toBe(0);
    const data = json(created.stdout);
    expect(data).toEqual({ cnvContactId: expect.any(String), contactCreated: true });
    expect(created.stderr).toBe('');

    const updated = await cnvInProcess(['contacts', 'upsert', '--email', 'new.person@example.com', '--field', 'city=Paris'], { env: fx.env });
    expect(json(updated.stdout)).toEqual({ cnvContactId: data.cnvContactId, contactCreated: false });

    const got = json((await cnvInProcess(['contacts', 'get', '--email', 'new.person@example.com'], { env: fx.env })).stdout);
    expect(got).toMatchObject({ cnvContactId: data.cnvContactId, subscriptionStatus: 'SUBSCRIBED', fields: { firstName: 'New', score: 7, city: 'Paris' } });
  });

  it('with --contact-id and --email, updates the address of that contact', async () => {
    const { stdout } = await cnvInProcess(['contacts', 'upsert', '--email', 'rename.me@example.com'], { env: fx.env });
    const id = json(stdout).cnvContactId;
    const res = await cnvInProcess(['contacts', 'upsert', '--contact-id', id, '--email', 'renamed@example.com'], { env: fx.env });
    expect(json(res.stdout)).toEqual({ cnvContactId: id, contactCreated: false });
    const got = json((await cnvInProcess(['contacts', 'get', '--contact-id', id], { env: fx.env })).stdout);
    expect(got.email).toBe('renamed@example.com');
  });

  it('--update-only never creates: exit 5 with contact_not_found', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'nobody.here@example.com', '--update-only'], { env: fx.env });
    expect(res.exitCode).toBe(5);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: contact_not_found: /m);
  });

  it('sends --set fields the spec does not name (preserveExisting keeps non-empty values)', async () => {
    await cnvInProcess(['contacts', 'upsert', '--email', 'keep@example.com', '--field', 'city=Rome'], { env: fx.env });
    await cnvInProcess(['contacts', 'upsert', '--email', 'keep@example.com', '--field', 'city=Oslo', '--field', 'firstName=Kim', '--set', 'preserveExisting=true'], { env: fx.env });
    const got = json((await cnvInProcess(['contacts', 'get', '--email', 'keep@example.com'], { env: fx.env })).stdout);
    expect(got.fields).toMatchObject({ city: 'Rome', firstName: 'Kim' });
  });

  it.each([
    [['--status', 'SUBSCRIBED'], /missing_identifier: identify the contact with --email or --contact-id/],
    [['--email', 'not-an-email'], /invalid_email: --email: not a valid email address/],
    [['--email', 'a@example.com', '--status', 'BOUNCED'], /--status.*expected one of SUBSCRIBED, UNSUBSCRIBED, NO_STATUS/],
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
    const res = await cnvInProcess(['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '-F', 'score=many'], { env: fx.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/^error: invalid_field: .*score/m);
  });

  it('a read-only or unknown field key is refused before sending (exit 2), as a file\'s column is', async () => {
    await fx.resetStats();
    const readOnly = await cnvInProcess(['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '--field', 'leadScore=5'], { env: fx.env });
    expect(readOnly.exitCode).toBe(2);
    expect(readOnly.stderr).toMatch(/^error: invalid_field: --field leadScore: the CONTACT field "leadScore" is read-only$/m);
    const unknown = await cnvInProcess(['contacts', 'upsert', '--email', FIXTURE_CONTACTS.ada.email, '--company-field', 'nope=1'], { env: fx.env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown_field: --company-field "nope": no COMPANY field has this key$/m);
    expect((await fx.stats()).byRoute['POST /v2/contacts'] ?? 0).toBe(0);
  });

  it('with --json, the error is also one JSON line on stderr', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'nobody.json@example.com', '--update-only', '--json'], { env: fx.env });
    const line = res.stderr.trim().split('\n').at(-1)!;
    expect(json(line)).toEqual({ error: expect.objectContaining({ code: 'contact_not_found', status: 404, exitCode: 5 }) });
  });
});

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
    const res = await cnvInProcess(['contacts', 'get', '--email', 'basic.user@example.com'], { env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.basic } });
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

describe('authentication (in-process)', () => {
  it('no key anywhere: exit 4 and how to set one', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], { env: { ...fx.env, CNV_API_KEY: undefined } });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/no API key configured/);
    expect(res.stderr).toMatch(/cnv config set-key/);
  });

  it('an invalid key: exit 4 unauthorized', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], { env: { ...fx.env, CNV_API_KEY: 'sk_live_nope_0000000000000000' } });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: unauthorized: /m);
    expect(res.stderr).not.toContain('0000000000000000');
  });

  it('a key with whitespace is refused locally (exit 2); an odd-looking one gets a warning', async () => {
    const spaced = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], { env: { ...fx.env, CNV_API_KEY: 'sk_live_a_b c' } });
    expect(spaced.exitCode).toBe(2);
    expect(spaced.stderr).toMatch(/whitespace or control characters/);
    const odd = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], { env: { ...fx.env, CNV_API_KEY: 'weird-key-value' } });
    expect(odd.stderr).toMatch(/^warning: .*does not have the form sk_live_<key_id>_<secret>/m);
    expect(odd.exitCode).toBe(4);
  });

  it('refuses plain http to a non-loopback host', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com', '--base-url', 'http://api.example.com'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/plain http is refused/);
  });
});
