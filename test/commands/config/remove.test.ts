import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

describe('cnv config (in-process)', () => {
  it('remove deletes a profile with its key; the default moves to the one left, or is unset, said once', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    const file = join(dir, 'config.json');
    for (const name of ['prod', 'staging', 'dev'])
      await cnvInProcess(['--profile', name, 'config', 'set-key', '--base-url', fx.emulator.url], {
        env,
        input: fx.emulator.keys.full,
      });
    await cnvInProcess(['config', 'use', 'staging'], { env });
    // Not the default: only it goes.
    const dev = await cnvInProcess(['config', 'remove', 'dev', '--yes'], { env });
    expect(dev.exitCode).toBe(0);
    expect(dev.stdout).toBe('');
    expect(dev.stderr).toBe('removed profile "dev" and its API key\n');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ currentProfile: 'staging' });
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.dev).toBeUndefined();
    // The default, with one other left: the default moves to it.
    const staging = await cnvInProcess(['config', 'remove', 'staging', '--json', '--yes'], { env });
    expect(staging.stderr).toBe('removed profile "staging" and its API key; "prod" is now the default\n');
    expect(JSON.parse(staging.stdout)).toEqual({
      profile: 'staging',
      removed: true,
      default: 'prod',
      profiles: ['prod'],
      configFile: file,
    });
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.currentProfile).toBe('prod');
    expect(readFileSync(file, 'utf8')).not.toContain('staging');
    // The last one: nothing left, no default; a name that is not there is exit 2 naming the known ones.
    expect((await cnvInProcess(['config', 'remove', 'prod', '--yes'], { env })).stderr).toBe(
      'removed profile "prod" and its API key; no profiles are left\n',
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
    expect(readFileSync(file, 'utf8')).not.toContain(fx.emulator.keys.full);
    const gone = await cnvInProcess(['config', 'remove', 'prod', '--yes'], { env });
    expect(gone.exitCode).toBe(2);
    expect(gone.stderr).toMatch(/^error: usage: no profile named "prod"$/m);
  });

  it('remove of the default with several others left unsets it and says how to set one', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    for (const name of ['a', 'b', 'c'])
      await cnvInProcess(['--profile', name, 'config', 'set-url', fx.emulator.url], { env });
    await cnvInProcess(['config', 'use', 'a'], { env });
    const res = await cnvInProcess(['config', 'remove', 'a', '-q', 'default', '--yes'], { env });
    expect(res.stdout).toBe('null\n');
    expect(res.stderr).toBe(
      'removed profile "a" and its API key; there is no default profile now: `cnv config use NAME` sets one (profiles: b, c)\n',
    );
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).currentProfile).toBeUndefined();
  });
});
