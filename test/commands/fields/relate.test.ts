import { describe, expect, it } from 'vitest';
import { FIXTURE_CUSTOM_OBJECT as CO } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);
const withKey = (key: string) => ({ ...fx.env, CNV_API_KEY: key });

describe('cnv fields relate (in-process)', () => {
  it('creates the pair from specs and prints the source and related fields', async () => {
    const res = await cnvInProcess(
      [
        'fields',
        'relate',
        '--source',
        `CUSTOM_OBJECT:accountManager:Account manager: main:${CO.id}`,
        '--target',
        'contact:managedSubscriptions:Managed subscriptions',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({
      sourceField: { key: 'accountManager', objectType: 'CUSTOM_OBJECT', customObjectId: CO.id },
      relatedFields: [{ key: 'managedSubscriptions', objectType: 'CONTACT' }],
    });
    const listed = json(
      (await cnvInProcess(['fields', 'list', '--custom-object-id', CO.id, '--all'], { env: fx.env })).stdout,
    );
    expect(listed.find((f: { key: string }) => f.key === 'accountManager')).toMatchObject({
      label: 'Account manager: main',
      readOnly: false,
    });
  });

  it('creates the pair from the separate flags', async () => {
    const res = await cnvInProcess(
      [
        'fields',
        'relate',
        '--source-object',
        'opportunity',
        '--source-key',
        ' partner ',
        '--source-label',
        'Partner: primary',
        '--target-object',
        'COMPANY',
        '--target-key',
        'partnerDeals',
        '--target-label',
        'Partner deals',
      ],
      { env: fx.env },
    );
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
    const unknown = await cnvInProcess(
      [
        'fields',
        'relate',
        '--source',
        'CUSTOM_OBJECT:k10:L:c0000000-0000-4000-8000-0000000000ff',
        '--target',
        'CONTACT:k11:L',
      ],
      { env: fx.env },
    );
    expect(unknown.exitCode).toBe(5);
    const limited = await cnvInProcess(['fields', 'relate', '--source', 'CONTACT:k12:L', '--target', 'COMPANY:k13:L'], {
      env: withKey(fx.emulator.keys.limited),
    });
    expect(limited.exitCode).toBe(4);
    expect(limited.stderr).toMatch(/forbidden/);
    const basic = await cnvInProcess(
      ['fields', 'relate', '--source', `CUSTOM_OBJECT:k14:L:${CO.id}`, '--target', 'CONTACT:k15:L'],
      { env: withKey(fx.emulator.keys.basic) },
    );
    expect(basic.exitCode).toBe(4);
    expect(basic.stderr).toMatch(/Custom objects are not enabled/);
    const taken = await cnvInProcess(['fields', 'relate', '--source', 'CONTACT:city:L', '--target', 'COMPANY:k16:L'], {
      env: fx.env,
    });
    expect(taken.exitCode).toBe(3);
    expect(taken.stderr).toMatch(/invalid_field/);
  });
});
