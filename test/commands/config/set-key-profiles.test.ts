import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

/** stderr as lines, without the empty one after the last newline. */
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('identifiers, state reset, profiles', () => {
  it('set-key --profile p on an empty config makes p current; --profile nosuch lists the profiles (exit 2)', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    const set = await cnvInProcess(['--profile', 'p', 'config', 'set-key', '--base-url', fx.emulator.url], {
      env,
      input: fx.emulator.keys.full,
    });
    expect(set.exitCode).toBe(0);
    expect(JSON.parse((await cnvInProcess(['config', 'list'], { env })).stdout)).toEqual([
      expect.objectContaining({ profile: 'p', current: true }),
    ]);
    expect((await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env })).exitCode).toBe(0);

    const nosuch = await cnvInProcess(['--profile', 'nosuch', 'contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...env, CNV_API_KEY: fx.emulator.keys.full },
    });
    expect(nosuch.exitCode).toBe(2);
    expect(lines(nosuch.stderr)).toEqual([
      'error: unknown_profile: no profile named "nosuch" (from --profile)',
      'hint: profiles: p (`cnv config list`); create one with `cnv --profile nosuch config set-key`',
    ]);
  });

  it('set-key KEY as an argument says to pipe it and never echoes it', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    const res = await cnvInProcess(['config', 'set-key', 'sk_live_typed_in_the_shell'], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /^error: key_as_argument: .*\nhint: pipe it in: printf %s "\$KEY" \| cnv config set-key/,
    );
    expect(res.stdout + res.stderr).not.toContain('sk_live_typed_in_the_shell');
  });
});
