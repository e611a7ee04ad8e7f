import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

describe('cnv doctor (in-process)', () => {
  it('all well with the full key: exit 0, every gated endpoint enabled; what a made-up name left open is not "ok"', async () => {
    const res = await cnvInProcess(['doctor'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const checks = JSON.parse(res.stdout) as Array<{ check: string; status: string }>;
    expect(checks.filter((c) => c.status !== 'ok').map((c) => `${c.check}: ${c.status}`)).toEqual([
      'endpoint: create field: inferred',
      'endpoint: batch add to audience: inferred',
      'permission: audience edit: unchecked',
      'permission: field creation and custom-object edit: unchecked',
      'permission: edit records: unchecked',
    ]);
    expect(checks.filter((c) => c.check.startsWith('endpoint:'))).toHaveLength(7);
  });

  it('with the demo key that has no permissions: each permission it lacks is a warning, nothing it did not check is "ok"', async () => {
    const res = await cnvInProcess(['doctor'], { env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.limited } });
    expect(res.exitCode).toBe(0);
    const checks = JSON.parse(res.stdout) as Array<{ check: string; status: string; detail: string }>;
    const permissions = checks.filter((c) => c.check.startsWith('permission:'));
    expect(permissions.map((c) => [c.check, c.status])).toEqual([
      ['permission: audience edit', 'warn'],
      ['permission: field creation and custom-object edit', 'warn'],
      ['permission: edit records', 'warn'],
    ]);
    expect(permissions[0].detail).toMatch(/^refused \(403 forbidden: .*\): audience remove will be refused too$/);
    expect(checks.filter((c) => c.status === 'ok')).toHaveLength(11);
    expect(res.stderr).toMatch(/^doctor: 11 ok, 3 warnings, 0 failed, 2 not checked \(2 of them inferred\): /m);
  });

  it('with the basic key: gated endpoints are reported as not enabled', async () => {
    const res = await cnvInProcess(['doctor'], { env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.basic } });
    expect(res.exitCode).toBe(0);
    const checks = JSON.parse(res.stdout) as Array<{ check: string; status: string; detail: string }>;
    const gated = checks.filter((c) => c.check.startsWith('endpoint:'));
    expect(gated.every((c) => c.status === 'warn' && /export_not_enabled/.test(c.detail))).toBe(true);
  });

  it('a refused key exits 4; an unreachable API exits 7', async () => {
    const bad = await cnvInProcess(['doctor'], { env: { ...fx.env, CNV_API_KEY: 'sk_live_bad_0000000000' } });
    expect(bad.exitCode).toBe(4);
    const down = await cnvInProcess(['doctor', '--base-url', 'http://127.0.0.1:9'], { env: fx.env });
    expect(down.exitCode).toBe(7);
  });

  it('prints a table on a TTY-less stdout only when asked', async () => {
    const res = await cnvInProcess(['doctor', '-o', 'table'], { env: fx.env });
    expect(res.stdout).toMatch(/check.*status.*detail/);
  });
});
