import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

describe('cnv config (in-process)', () => {
  it('set-key reads stdin, stores the key in a 0600 file, and never prints it', async () => {
    const dir = tempConfigDir();
    const key = fx.emulator.keys.full;
    const set = await cnvInProcess(['config', 'set-key', '--base-url', fx.emulator.url], {
      env: { CNV_CONFIG_DIR: dir },
      input: key + '\n',
    });
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

  it('set-key refuses an empty or whitespace key', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnvInProcess(['config', 'set-key'], { env, input: '' })).exitCode).toBe(2);
    const spaced = await cnvInProcess(['config', 'set-key'], { env, input: 'sk_live_a b_c' });
    expect(spaced.exitCode).toBe(2);
    expect(spaced.stderr).toMatch(/whitespace/);
  });
});
