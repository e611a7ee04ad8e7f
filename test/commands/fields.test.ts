import { describe, expect, it } from 'vitest';
import { FIXTURE_CUSTOM_OBJECT as CO } from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);
const withKey = (key: string) => ({ ...fx.env, CNV_API_KEY: key });

describe('cnv fields create (in-process)', () => {
  it('creates a field with types in any case and prints the definition; the field then works in contacts', async () => {
    const res = await cnvInProcess(['fields', 'create', '--label', 'Loyalty tier', '--object-type', 'contact', '--data-type', 'String'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({ key: 'loyaltyTier', label: 'Loyalty tier', objectType: 'CONTACT', dataType: 'STRING' });
    expect(res.stderr).toBe('');

    const up = await cnvInProcess(['contacts', 'upsert', '--email', 'tiered@example.com', '--field', 'loyaltyTier=gold'], { env: fx.env });
    expect(up.exitCode).toBe(0);
    const got = json((await cnvInProcess(['contacts', 'get', '--email', 'tiered@example.com'], { env: fx.env })).stdout);
    expect(got.fields).toEqual({ loyaltyTier: 'gold' });
  });

  it('sends an explicit key', async () => {
    const res = await cnvInProcess(['fields', 'create', '--label', 'Lifetime value (EUR)', '--object-type', 'CONTACT', '--data-type', 'number', '--key', 'ltvEur'], { env: fx.env });
    expect(json(res.stdout)).toEqual({ key: 'ltvEur', label: 'Lifetime value (EUR)', objectType: 'CONTACT', dataType: 'NUMBER' });
  });

  it.each([
    [['--label', 'X', '--object-type', 'lead', '--data-type', 'STRING'], /--object-type.*expected one of CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER \(any case\), got "lead"/],
    [['--label', 'X', '--object-type', 'CONTACT', '--data-type', 'text'], /--data-type.*expected one of STRING, NUMBER, BOOLEAN, DATE, DATETIME/],
    [['--object-type', 'CONTACT', '--data-type', 'STRING'], /--label: required/],
    [['--label', 'X', '--data-type', 'STRING'], /--object-type: required/],
    [['--label', 'X', '--object-type', 'CONTACT'], /--data-type: required/],
    [['--label', 'X', '--object-type', 'CONTACT', '--data-type', 'STRING', '--key', 'a-b'], /--key: only letters, digits and underscores/],
  ])('refuses bad flags locally with exit 2: %j', async (args, message) => {
    await fx.resetStats();
    const res = await cnvInProcess(['fields', 'create', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
    expect((await fx.stats()).total).toBe(0);
  });

  it('a duplicate key exits 3 with invalid_field', async () => {
    const res = await cnvInProcess(['fields', 'create', '--label', 'City', '--object-type', 'CONTACT', '--data-type', 'STRING'], { env: fx.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/^error: invalid_field: .*"city" already exists/m);
  });

  it('exits 4 with export_not_enabled for the basic key; the limited key needs no permission for a plain field', async () => {
    const args = ['fields', 'create', '--label', 'Gate', '--object-type', 'CONTACT', '--data-type', 'STRING'];
    const basic = await cnvInProcess(args, { env: withKey(fx.emulator.keys.basic) });
    expect(basic.exitCode).toBe(4);
    expect(basic.stderr).toMatch(/export_not_enabled/);
    const limited = await cnvInProcess(args, { env: withKey(fx.emulator.keys.limited) });
    expect(limited.exitCode, limited.stderr).toBe(0);
    expect(JSON.parse(limited.stdout)).toMatchObject({ key: 'gate', objectType: 'CONTACT' });
  });

  it('--help shows the allowed values and an example', async () => {
    const res = await cnvInProcess(['fields', 'create', '--help']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout.replace(/\s+/g, " ")).toMatch(/CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER \(any case\)/);
    expect(res.stdout).toMatch(/\$ cnv fields create --label/);
  });
});

describe('cnv fields list (in-process)', () => {
  it('prints one page as JSON and the next cursor on stderr; --cursor continues', async () => {
    const first = await cnvInProcess(['fields', 'list', '--object-type', 'contact', '--limit', '3'], { env: fx.env });
    expect(first.exitCode).toBe(0);
    const page = json(first.stdout);
    expect(page.map((f: { key: string }) => f.key)).toEqual(['firstName', 'lastName', 'city']);
    expect(page[0]).toEqual({ key: 'firstName', label: 'First name', objectType: 'CONTACT', dataType: 'STRING', readOnly: false });
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const next = await cnvInProcess(['fields', 'list', '--cursor', cursor!, '--limit', '2'], { env: fx.env });
    expect(json(next.stdout).map((f: { key: string }) => f.key)).toEqual(['score', 'vip']);
  });

  it('--all streams every page as NDJSON, the same as one big page', async () => {
    const all = await cnvInProcess(['fields', 'list', '--all', '--limit', '4', '-o', 'ndjson'], { env: fx.env });
    expect(all.exitCode).toBe(0);
    const lines = all.stdout.trim().split('\n').map(json);
    const big = json((await cnvInProcess(['fields', 'list', '--limit', '1000'], { env: fx.env })).stdout);
    expect(lines).toEqual(big);
    expect(all.stderr).toBe('');
  });

  it('prints CSV with a stable header, relationship columns included', async () => {
    const res = await cnvInProcess(['fields', 'list', '--custom-object-id', CO.id, '--all', '-o', 'csv'], { env: fx.env });
    const [header, ...rows] = res.stdout.trim().split('\n');
    expect(header).toBe('key,label,objectType,dataType,readOnly,customObjectId,relationship.objectType,relationship.customObjectId,relationship.pairedKey,relationship.reverse,_extra');
    expect(rows).toContain(`subscriber,Subscriber,CUSTOM_OBJECT,STRING,false,${CO.id},CONTACT,,subscriptions,false,`);
    expect(rows).toContain(`syncedAt,Synced at,CUSTOM_OBJECT,DATETIME,true,${CO.id},,,,,`);
  });

  it('prints a table on a TTY-less run when asked, and refuses bad flags with exit 2', async () => {
    const table = await cnvInProcess(['fields', 'list', '--object-type', 'COMPANY', '-o', 'table', '--no-color'], { env: fx.env });
    expect(table.stdout).toMatch(/accountOwner .*Account owner .*COMPANY .*STRING .*true/);
    const bad = await cnvInProcess(['fields', 'list', '--object-type', 'lead'], { env: fx.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/CUSTOM_OBJECT/);
    const badId = await cnvInProcess(['fields', 'list', '--custom-object-id', 'nope'], { env: fx.env });
    expect(badId.exitCode).toBe(2);
    const mixed = await cnvInProcess(['fields', 'list', '--object-type', 'CONTACT', '--custom-object-id', CO.id], { env: fx.env });
    expect(mixed.exitCode).toBe(2);
  });

  it('an unknown custom object lists nothing (the spec has no such filter: CUSTOM_OBJECT fields are filtered here); a bad cursor exits 3 with a hint', async () => {
    const missing = await cnvInProcess(['fields', 'list', '--custom-object-id', 'c0000000-0000-4000-8000-0000000000ff', '--json'], { env: fx.env });
    expect(missing.exitCode).toBe(0);
    expect(JSON.parse(missing.stdout)).toEqual([]);
    const cursor = await cnvInProcess(['fields', 'list', '--cursor', 'garbage'], { env: fx.env });
    expect(cursor.exitCode).toBe(3);
    expect(cursor.stderr).toMatch(/invalid_cursor/);
  });
});

describe('cnv fields relate (in-process)', () => {
  it('creates the pair from specs and prints the source and related fields', async () => {
    const res = await cnvInProcess(['fields', 'relate', '--source', `CUSTOM_OBJECT:accountManager:Account manager: main:${CO.id}`, '--target', 'contact:managedSubscriptions:Managed subscriptions'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({
      sourceField: { key: 'accountManager', objectType: 'CUSTOM_OBJECT', customObjectId: CO.id },
      relatedFields: [{ key: 'managedSubscriptions', objectType: 'CONTACT' }],
    });
    const listed = json((await cnvInProcess(['fields', 'list', '--custom-object-id', CO.id, '--all'], { env: fx.env })).stdout);
    expect(listed.find((f: { key: string }) => f.key === 'accountManager')).toMatchObject({ label: 'Account manager: main', readOnly: false });
  });

  it('creates the pair from the separate flags', async () => {
    const res = await cnvInProcess(['fields', 'relate', '--source-object', 'opportunity', '--source-key', ' partner ', '--source-label', 'Partner: primary', '--target-object', 'COMPANY', '--target-key', 'partnerDeals', '--target-label', 'Partner deals'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout).sourceField).toEqual({ key: 'partner', objectType: 'OPPORTUNITY' });
  });

  it.each([
    [['--source', 'CONTACT:k1:L', '--target', 'COMPANY:k1:L'], /keys must differ/],
    [['--source', 'CUSTOM_OBJECT:k2:L', '--target', 'CONTACT:k3:L'], /needs the custom object id/],
    [['--source', `CONTACT:k4:L:${CO.id}`, '--target', 'COMPANY:k5:L'], /only for CUSTOM_OBJECT/],
    [['--source', 'CONTACT:bad key:L', '--target', 'COMPANY:k6:L'], /only letters, digits and underscores/],
    [['--source', 'CONTACT:k7:L'], /--target: required/],
    [['--source', 'CONTACT:k8:L', '--target', 'COMPANY:k9:L', '--target-key', 'x'], /not both/],
  ])('refuses bad sides locally with exit 2: %j', async (args, message) => {
    await fx.resetStats();
    const res = await cnvInProcess(['fields', 'relate', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
    expect((await fx.stats()).total).toBe(0);
  });

  it('maps API refusals to exit codes: unknown custom object 5, permission 4, taken key 3', async () => {
    const unknown = await cnvInProcess(['fields', 'relate', '--source', 'CUSTOM_OBJECT:k10:L:c0000000-0000-4000-8000-0000000000ff', '--target', 'CONTACT:k11:L'], { env: fx.env });
    expect(unknown.exitCode).toBe(5);
    const limited = await cnvInProcess(['fields', 'relate', '--source', 'CONTACT:k12:L', '--target', 'COMPANY:k13:L'], { env: withKey(fx.emulator.keys.limited) });
    expect(limited.exitCode).toBe(4);
    expect(limited.stderr).toMatch(/forbidden/);
    const basic = await cnvInProcess(['fields', 'relate', '--source', `CUSTOM_OBJECT:k14:L:${CO.id}`, '--target', 'CONTACT:k15:L'], { env: withKey(fx.emulator.keys.basic) });
    expect(basic.exitCode).toBe(4);
    expect(basic.stderr).toMatch(/Custom objects are not enabled/);
    const taken = await cnvInProcess(['fields', 'relate', '--source', 'CONTACT:city:L', '--target', 'COMPANY:k16:L'], { env: fx.env });
    expect(taken.exitCode).toBe(3);
    expect(taken.stderr).toMatch(/invalid_field/);
  });
});
