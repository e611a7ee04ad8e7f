import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

describe('cnv config (in-process)', () => {
  it('set-key reads stdin, stores the key in a 0600 file, and never prints it', async () => {
    const dir = tempConfigDir();
    const key = fx.emulator.keys.full;
    const set = await cnvInProcess(['config', 'set-key', '--base-url', fx.emulator.url], { env: { CNV_CONFIG_DIR: dir }, input: key + '\n' });
    expect(set.exitCode).toBe(0);
    expect(set.stderr).toMatch(/saved API key sk_live_demo_\*\*\*\* for profile "default"/);
    expect(set.stdout + set.stderr).not.toContain(key);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.apiKey).toBe(key);

    // the stored profile is used with no flag or env
    const got = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env: { CNV_CONFIG_DIR: dir } });
    expect(got.exitCode).toBe(0);
    expect(JSON.parse(got.stdout).email).toBe('ada@example.com');
  });

  it('profiles: use, list and show, with precedence flag > env > profile', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    await cnvInProcess(['--profile', 'basic', 'config', 'set-key'], { env, input: fx.emulator.keys.basic });
    await cnvInProcess(['--profile', 'basic', 'config', 'set-url', fx.emulator.url], { env });
    await cnvInProcess(['--profile', 'full', 'config', 'set-key', '--base-url', fx.emulator.url], { env, input: fx.emulator.keys.full });
    expect((await cnvInProcess(['config', 'use', 'nope'], { env })).exitCode).toBe(2);
    expect((await cnvInProcess(['config', 'use', 'basic'], { env })).exitCode).toBe(0);

    const list = JSON.parse((await cnvInProcess(['config', 'list'], { env })).stdout);
    expect(list).toEqual([
      { profile: 'basic', current: true, baseUrl: fx.emulator.url, apiKey: 'sk_live_basic_****' },
      { profile: 'full', current: false, baseUrl: fx.emulator.url, apiKey: 'sk_live_demo_****' },
    ]);

    const show = JSON.parse((await cnvInProcess(['config', 'show'], { env })).stdout);
    expect(show).toMatchObject({ profile: 'basic', apiKey: 'sk_live_basic_****', apiKeySource: 'profile', baseUrlSource: 'profile' });
    const envWins = JSON.parse((await cnvInProcess(['config', 'show'], { env: { ...env, CNV_API_KEY: fx.emulator.keys.limited } })).stdout);
    expect(envWins).toMatchObject({ apiKey: 'sk_live_limited_****', apiKeySource: 'CNV_API_KEY' });
    const flagWins = JSON.parse((await cnvInProcess(['config', 'show', '--api-key', fx.emulator.keys.full], { env: { ...env, CNV_API_KEY: fx.emulator.keys.limited } })).stdout);
    expect(flagWins).toMatchObject({ apiKey: 'sk_live_demo_****', apiKeySource: '--api-key' });

    // the current profile (basic) has no gated endpoints; --profile full does
    expect((await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env })).exitCode).toBe(4);
    expect((await cnvInProcess(['--profile', 'full', 'contacts', 'get', '--email', 'ada@example.com'], { env })).exitCode).toBe(0);
  });

  it('remove deletes a profile with its key; the default moves to the one left, or is unset, said once', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    const file = join(dir, 'config.json');
    for (const name of ['prod', 'staging', 'dev']) await cnvInProcess(['--profile', name, 'config', 'set-key', '--base-url', fx.emulator.url], { env, input: fx.emulator.keys.full });
    await cnvInProcess(['config', 'use', 'staging'], { env });
    // Not the default: only it goes.
    const dev = await cnvInProcess(['config', 'remove', 'dev'], { env });
    expect(dev.exitCode).toBe(0);
    expect(dev.stdout).toBe('');
    expect(dev.stderr).toBe('removed profile "dev" and its API key\n');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ currentProfile: 'staging' });
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.dev).toBeUndefined();
    // The default, with one other left: the default moves to it.
    const staging = await cnvInProcess(['config', 'remove', 'staging', '--json'], { env });
    expect(staging.stderr).toBe('removed profile "staging" and its API key; "prod" is now the default\n');
    expect(JSON.parse(staging.stdout)).toEqual({ profile: 'staging', removed: true, default: 'prod', profiles: ['prod'], configFile: file });
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.currentProfile).toBe('prod');
    expect(readFileSync(file, 'utf8')).not.toContain('staging');
    // The last one: nothing left, no default; a name that is not there is exit 2 naming the known ones.
    expect((await cnvInProcess(['config', 'remove', 'prod'], { env })).stderr).toBe('removed profile "prod" and its API key; no profiles are left\n');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
    expect(readFileSync(file, 'utf8')).not.toContain(fx.emulator.keys.full);
    const gone = await cnvInProcess(['config', 'remove', 'prod'], { env });
    expect(gone.exitCode).toBe(2);
    expect(gone.stderr).toMatch(/^error: usage: no profile named "prod"$/m);
  });

  it('remove of the default with several others left unsets it and says how to set one', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    for (const name of ['a', 'b', 'c']) await cnvInProcess(['--profile', name, 'config', 'set-url', fx.emulator.url], { env });
    await cnvInProcess(['config', 'use', 'a'], { env });
    const res = await cnvInProcess(['config', 'remove', 'a', '-q', 'default'], { env });
    expect(res.stdout).toBe('null\n');
    expect(res.stderr).toBe('removed profile "a" and its API key; there is no default profile now: `cnv config use NAME` sets one (profiles: b, c)\n');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).currentProfile).toBeUndefined();
  });

  it('set-key refuses an empty or whitespace key', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnvInProcess(['config', 'set-key'], { env, input: '' })).exitCode).toBe(2);
    const spaced = await cnvInProcess(['config', 'set-key'], { env, input: 'sk_live_a b_c' });
    expect(spaced.exitCode).toBe(2);
    expect(spaced.stderr).toMatch(/whitespace/);
  });

  it('set-url refuses plain http to a remote host', async () => {
    const res = await cnvInProcess(['config', 'set-url', 'http://api.example.com'], { env: { CNV_CONFIG_DIR: tempConfigDir() } });
    expect(res.exitCode).toBe(2);
  });
});

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

describe('a config directory that cannot be used is an error naming it, never "a bug in cnv"', () => {
  it('CNV_CONFIG_DIR naming a file: exit 2, config_dir_unusable, naming the variable and the path', async () => {
    const file = join(tempConfigDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    for (const args of [['contacts', 'get', '--email', 'ada@example.com'], ['export', 'state', 'list'], ['export', 'contacts', '--state-key', 'k'], ['config', 'set-key']]) {
      const res = await cnvInProcess(args, { env: { CNV_CONFIG_DIR: file, CNV_API_KEY: fx.emulator.keys.full, CNV_BASE_URL: fx.emulator.url }, input: fx.emulator.keys.full });
      expect(res.exitCode, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(new RegExp(`^error: config_dir_unusable: the config directory ${file} \\(from CNV_CONFIG_DIR\\) is not a directory: a file stands at that path or above it \\(ENOTDIR on ${file}/`, 'm'));
      expect(res.stderr).toContain('hint: point CNV_CONFIG_DIR at a directory cnv may write to');
    }
  });

  it('a config directory that cannot be made (a read-only place): state list works, a stateful export is exit 8 naming it, a one-off export needs none', async () => {
    // mkdir under /sys is refused (EPERM or EROFS) even for root.
    const dir = '/sys/cnv-config-test';
    const env = { CNV_CONFIG_DIR: dir, CNV_API_KEY: fx.emulator.keys.full, CNV_BASE_URL: fx.emulator.url };
    const list = await cnvInProcess(['export', 'state', 'list', '--json'], { env });
    expect([list.exitCode, list.stdout.trim(), list.stderr]).toEqual([0, '[]', '']);
    const stateful = await cnvInProcess(['export', 'contacts', '--state-key', 'k', '--max-pages', '1'], { env });
    expect(stateful.exitCode, stateful.stderr).toBe(8);
    expect(stateful.stderr).toMatch(/^error: file_system_error: cannot use \/sys\/cnv-config-test\/exports, in the config directory \/sys\/cnv-config-test \(from CNV_CONFIG_DIR\): (operation not permitted|the file system is read-only|permission denied)/m);
    const out = join(tempConfigDir(), 'one-off.ndjson');
    const oneOff = await cnvInProcess(['export', 'contacts', '--no-state', '--out', out, '--max-pages', '1'], { env });
    expect(oneOff.exitCode, oneOff.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').length).toBeGreaterThan(0);
  });

  it('a config file that cannot be written (a directory that exists, read-only): config set-url is exit 8 naming the file, not a bug', async () => {
    // /sys exists and refuses new files (EACCES or EROFS), even to root.
    const res = await cnvInProcess(['config', 'set-url', 'http://127.0.0.1:9'], { env: { CNV_CONFIG_DIR: '/sys' } });
    expect(res.exitCode, res.stderr).toBe(8);
    expect(res.stderr).toMatch(/^error: file_system_error: cannot use \/sys\/config\.json, in the config directory \/sys \(from CNV_CONFIG_DIR\): /m);
  });
});
