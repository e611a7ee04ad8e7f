import { beforeEach, describe, expect, it } from 'vitest';
import { cnv, cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();
beforeEach(() => fx.resetStats());

describe('--dry-run (in-process)', () => {
  it('prints the write request with the key redacted and sends nothing', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'dry@example.com', '--field', 'score=3', '--dry-run'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    const printed = JSON.parse(res.stdout);
    expect(printed).toEqual({
      dryRun: true,
      method: 'POST',
      url: `${fx.emulator.url}/v2/contacts`,
      headers: expect.objectContaining({ 'x-api-key': 'sk_live_demo_****', 'content-type': 'application/json' }),
      body: { email: 'dry@example.com', fields: { score: 3 } },
    });
    expect(res.stdout + res.stderr).not.toContain(fx.emulator.keys.full);
    // Only the field definitions are read (so that the printed body is the one a run sends).
    expect((await fx.stats()).byRoute).toEqual({ 'GET /v2/fields': 1 });
  });

  it('shows the clientEventId an event would carry', async () => {
    const res = await cnvInProcess(['--dry-run', 'events', 'track', '--event', 'x', '--email', 'a@example.com'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).body.clientEventId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fx.stats()).total).toBe(0);
  });

  it('still validates locally first', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'nope', '--dry-run'], { env: fx.env });
    expect(res.exitCode).toBe(2);
  });
});

describe('non-interactive use', () => {
  it('set-key with no stdin fails at once instead of prompting', async () => {
    const started = Date.now();
    const res = await cnv(['config', 'set-key'], { env: { CNV_CONFIG_DIR: fx.configDir } });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/no API key was given on stdin/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('NO_COLOR and --no-color remove colour from tables on a TTY', async () => {
    const withEnv = await cnvInProcess(['config', 'list', '-o', 'table'], {
      env: { ...fx.env, NO_COLOR: '1' },
      stdoutIsTTY: true,
    });
    expect(withEnv.stdout).not.toMatch(/\x1b\[/);
    const withFlag = await cnvInProcess(['doctor', '--no-color'], { env: fx.env, stdoutIsTTY: true });
    expect(withFlag.stdout).toMatch(/check/);
    expect(withFlag.stdout).not.toMatch(/\x1b\[/);
  });

  it('nothing but data on stdout, nothing on stderr, for a successful command when not on a TTY', async () => {
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], { env: fx.env });
    expect(res.stderr).toBe('');
    expect(() => JSON.parse(res.stdout)).not.toThrow();
  });
});
