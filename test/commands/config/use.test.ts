import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

describe('cnv config (in-process)', () => {
  it('profiles: use, list and show, with precedence flag > env > profile', async () => {
    const dir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: dir };
    await cnvInProcess(['--profile', 'basic', 'config', 'set-key'], { env, input: fx.emulator.keys.basic });
    await cnvInProcess(['--profile', 'basic', 'config', 'set-url', fx.emulator.url], { env });
    await cnvInProcess(['--profile', 'full', 'config', 'set-key', '--base-url', fx.emulator.url], {
      env,
      input: fx.emulator.keys.full,
    });
    expect((await cnvInProcess(['config', 'use', 'nope'], { env })).exitCode).toBe(2);
    expect((await cnvInProcess(['config', 'use', 'basic'], { env })).exitCode).toBe(0);

    const list = JSON.parse((await cnvInProcess(['config', 'list'], { env })).stdout);
    expect(list).toEqual([
      { profile: 'basic', current: true, baseUrl: fx.emulator.url, apiKey: 'sk_live_basic_****' },
      { profile: 'full', current: false, baseUrl: fx.emulator.url, apiKey: 'sk_live_demo_****' },
    ]);

    const show = JSON.parse((await cnvInProcess(['config', 'show'], { env })).stdout);
    expect(show).toMatchObject({
      profile: 'basic',
      apiKey: 'sk_live_basic_****',
      apiKeySource: 'profile',
      baseUrlSource: 'profile',
    });
    const envWins = JSON.parse(
      (await cnvInProcess(['config', 'show'], { env: { ...env, CNV_API_KEY: fx.emulator.keys.limited } })).stdout,
    );
    expect(envWins).toMatchObject({ apiKey: 'sk_live_limited_****', apiKeySource: 'CNV_API_KEY' });
    const flagWins = JSON.parse(
      (
        await cnvInProcess(['config', 'show', '--api-key', fx.emulator.keys.full], {
          env: { ...env, CNV_API_KEY: fx.emulator.keys.limited },
        })
      ).stdout,
    );
    expect(flagWins).toMatchObject({ apiKey: 'sk_live_demo_****', apiKeySource: '--api-key' });

    // the current profile (basic) has no gated endpoints; --profile full does
    expect((await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env })).exitCode).toBe(4);
    expect(
      (await cnvInProcess(['--profile', 'full', 'contacts', 'get', '--email', 'ada@example.com'], { env })).exitCode,
    ).toBe(0);
  });
});
