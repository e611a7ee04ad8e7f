import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/fields/create.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `fields create`'s run alone: POST /v2/fields is gated, and not idempotent (a repeat may make two fields).
const FIELD = { key: 'ltvEur', label: 'Lifetime value (EUR)', objectType: 'CONTACT', dataType: 'NUMBER' };
const OPTS = { label: ' Lifetime value (EUR) ', objectType: 'CONTACT', dataType: 'NUMBER', key: 'ltvEur' } as const;

const f = useFakeContext();

describe('fields create: run', () => {
  it('sends the label (trimmed), object type, data type and key; the created field is the record', async () => {
    f.api.on('POST', '/v2/fields', ok({ field: FIELD }));
    expect(await run(f.ctx, { args: [], opts: OPTS })).toEqual({ kind: 'record', data: FIELD });
    expect(f.api.requests[0].body).toEqual({
      label: 'Lifetime value (EUR)',
      objectType: 'CONTACT',
      dataType: 'NUMBER',
      key: 'ltvEur',
    });
  });

  it.each([
    [{ ...OPTS, label: '  ' }, /^--label: required/],
    [{ ...OPTS, objectType: undefined }, /^--object-type: required/],
    [{ ...OPTS, dataType: undefined }, /^--data-type: required/],
    [{ ...OPTS, key: 'ltv-eur' }, /^--key: only letters, digits and underscores/],
  ])('what the API would refuse for sure is exit 2, nothing sent (%#)', async (opts, message) => {
    await expect(run(f.ctx, { args: [], opts })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(message),
    });
  });

  it('not enabled for the account: 403 export_not_enabled, exit 4; a taken key: 400 invalid_field, exit 3, the field holding it named (issue 38)', async () => {
    f.api.on(
      'POST',
      '/v2/fields',
      apiError(403, 'export_not_enabled', 'not enabled'),
      apiError(400, 'invalid_field', 'key taken'),
    );
    // The key is looked up where it may be held: this object type first, then the others.
    f.api.on('GET', '/v2/fields?objectType=CONTACT&limit=1000', ok({ fields: [] }, null));
    f.api.on(
      'GET',
      '/v2/fields?objectType=COMPANY&limit=1000',
      ok({ fields: [{ key: 'ltvEur', label: 'LTV', objectType: 'COMPANY', dataType: 'NUMBER' }] }, null),
    );
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({
      exitCode: 4,
      code: 'export_not_enabled',
    });
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({
      exitCode: 3,
      code: 'invalid_field',
      message: 'key taken: the COMPANY field "LTV" (NUMBER) holds it, and keys are unique across object types',
      hint: expect.stringContaining('--key'),
    });
  });

  it('a 500 is not sent again (the field may exist now): exit 7; a 429 is', async () => {
    f.api.on('POST', '/v2/fields', apiError(500, 'internal_error', 'boom'));
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({
      exitCode: 7,
      hint: expect.stringMatching(/may have reached the server/),
    });
    f.api.on('POST', '/v2/fields', apiError(429, 'rate_limited', 'slow down'), ok({ field: FIELD }));
    expect(await run(f.ctx, { args: [], opts: OPTS })).toMatchObject({ data: FIELD });
  });
});

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);
const withKey = (key: string) => ({ ...fx.env, CNV_API_KEY: key });

describe('cnv fields create (in-process)', () => {
  it('creates a field with types in any case and prints the definition; the field then works in contacts', async () => {
    const res = await cnvInProcess(
      ['fields', 'create', '--label', 'Loyalty tier', '--object-type', 'contact', '--data-type', 'String'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({
      key: 'loyaltyTier',
      label: 'Loyalty tier',
      objectType: 'CONTACT',
      dataType: 'STRING',
    });
    expect(res.stderr).toBe('');

    const up = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'tiered@example.com', '--field', 'loyaltyTier=gold'],
      { env: fx.env },
    );
    expect(up.exitCode).toBe(0);
    const got = json(
      (await cnvInProcess(['contacts', 'get', '--email', 'tiered@example.com'], { env: fx.env })).stdout,
    );
    expect(got.fields).toEqual({ loyaltyTier: 'gold' });
  });

  it('sends an explicit key', async () => {
    const res = await cnvInProcess(
      [
        'fields',
        'create',
        '--label',
        'Lifetime value (EUR)',
        '--object-type',
        'CONTACT',
        '--data-type',
        'number',
        '--key',
        'ltvEur',
      ],
      { env: fx.env },
    );
    expect(json(res.stdout)).toEqual({
      key: 'ltvEur',
      label: 'Lifetime value (EUR)',
      objectType: 'CONTACT',
      dataType: 'NUMBER',
    });
  });

  it.each([
    [
      ['--label', 'X', '--object-type', 'lead', '--data-type', 'STRING'],
      /--object-type.*expected one of CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER \(any case\), got "lead"/,
    ],
    [
      ['--label', 'X', '--object-type', 'CONTACT', '--data-type', 'text'],
      /--data-type.*expected one of STRING, NUMBER, BOOLEAN, DATE, DATETIME/,
    ],
    [['--object-type', 'CONTACT', '--data-type', 'STRING'], /--label: required/],
    [['--label', 'X', '--data-type', 'STRING'], /--object-type: required/],
    [['--label', 'X', '--object-type', 'CONTACT'], /--data-type: required/],
    [
      ['--label', 'X', '--object-type', 'CONTACT', '--data-type', 'STRING', '--key', 'a-b'],
      /--key: only letters, digits and underscores/,
    ],
  ])('refuses bad flags locally with exit 2: %j', async (args, message) => {
    await fx.resetStats();
    const res = await cnvInProcess(['fields', 'create', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
    expect((await fx.stats()).total).toBe(0);
  });

  it('a duplicate key exits 3 with invalid_field', async () => {
    const res = await cnvInProcess(
      ['fields', 'create', '--label', 'City', '--object-type', 'CONTACT', '--data-type', 'STRING'],
      { env: fx.env },
    );
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

  it('--help shows the allowed values and an example; its whole page says they are taken in any case', async () => {
    const res = await cnvInProcess(['fields', 'create', '--help']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toMatch(/--object-type <type> +CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER\n/);
    expect(res.stdout).toMatch(/\$ cnv fields create --label/);
    const whole = await cnvInProcess(['help', 'fields', 'create']);
    expect(whole.stdout.replace(/\s+/g, ' ')).toMatch(/CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER \(any case\)/);
  });
});
