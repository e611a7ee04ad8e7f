import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator({}, { faults: true });

describe('authentication (in-process)', () => {
  it('no key anywhere: exit 4 and how to set one', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], {
      env: { ...fx.env, CNV_API_KEY: undefined },
    });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/no API key configured/);
    expect(res.stderr).toMatch(/cnv config set-key/);
  });

  it('an invalid key: exit 4 unauthorized', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], {
      env: { ...fx.env, CNV_API_KEY: 'sk_live_nope_0000000000000000' },
    });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: unauthorized: /m);
    expect(res.stderr).not.toContain('0000000000000000');
  });

  it('a key with whitespace is refused locally (exit 2); an odd-looking one gets a warning', async () => {
    const spaced = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], {
      env: { ...fx.env, CNV_API_KEY: 'sk_live_a_b c' },
    });
    expect(spaced.exitCode).toBe(2);
    expect(spaced.stderr).toMatch(/whitespace or control characters/);
    const odd = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com'], {
      env: { ...fx.env, CNV_API_KEY: 'weird-key-value' },
    });
    expect(odd.stderr).toMatch(/^warning: .*does not have the form sk_live_<key_id>_<secret>/m);
    expect(odd.exitCode).toBe(4);
  });

  it('refuses plain http to a non-loopback host', async () => {
    const res = await cnvInProcess(
      ['contacts', 'get', '--email', 'a@example.com', '--base-url', 'http://api.example.com'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/plain http is refused/);
  });
});
