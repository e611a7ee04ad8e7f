import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnv, cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

const secretOf = (key: string) => key.split('_').slice(3).join('_');

describe('the API key never appears in output', () => {
  it('across every log path: verbose success, retries, 401, --json errors, doctor, config, warnings', async () => {
    const full = fx.emulator.keys.full;
    const canary = 'sk_live_canary_CANARYSECRET0123456789';
    const odd = 'CANARY-odd-shaped-SECRET-9876';
    const dir = tempConfigDir();
    const base = { CNV_CONFIG_DIR: dir, CNV_BASE_URL: fx.emulator.url };
    const runs = [
      await cnvInProcess(['contacts', 'upsert', '--email', 'canary@example.com', '--verbose'], {
        env: { ...base, CNV_API_KEY: full },
      }),
      await cnvInProcess(['contacts', 'get', '--email', 'canary@example.com', '--verbose', '--json'], {
        env: { ...base, CNV_API_KEY: full },
      }),
      await cnvInProcess(
        ['contacts', 'get', '--email', 'canary@example.com', '--verbose', '--json', '--api-key', canary],
        { env: base },
      ),
      await cnvInProcess(['events', 'track', '--event', 'e', '--email', 'canary@example.com', '--verbose'], {
        env: { ...base, CNV_API_KEY: canary },
      }),
      await cnvInProcess(['contacts', 'get', '--email', 'canary@example.com', '--verbose'], {
        env: { ...base, CNV_API_KEY: odd },
      }),
      await cnvInProcess(['contacts', 'get', '--email', 'canary@example.com', '--verbose', '--bogus-flag'], {
        env: { ...base, CNV_API_KEY: full },
      }),
      await cnvInProcess(['doctor', '--verbose'], { env: { ...base, CNV_API_KEY: full } }),
      await cnvInProcess(['doctor', '--verbose', '--json'], { env: { ...base, CNV_API_KEY: canary } }),
      // The key arrives on a real pipe, as a user gives it (the runs around it are in-process).
      await cnv(['config', 'set-key', '--verbose'], { env: { CNV_CONFIG_DIR: dir }, input: full }),
      await cnvInProcess(['config', 'show', '--verbose'], { env: { CNV_CONFIG_DIR: dir } }),
      await cnvInProcess(['config', 'show', '--api-key', canary], { env: { CNV_CONFIG_DIR: dir } }),
      await cnvInProcess(['config', 'list', '-o', 'csv'], { env: { CNV_CONFIG_DIR: dir } }),
      await cnvInProcess(
        [
          'contacts',
          'get',
          '--email',
          'canary@example.com',
          '--base-url',
          'http://127.0.0.1:9',
          '--max-retries',
          '1',
          '--verbose',
        ],
        { env: { CNV_CONFIG_DIR: dir } },
      ),
    ];
    await fx.faults({ failNext: 1, dropAfterNext: 1 });
    runs.push(
      await cnvInProcess(['events', 'track', '--event', 'e', '--email', 'canary@example.com', '--verbose'], {
        env: { ...base, CNV_API_KEY: full },
      }),
    );

    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(everything).toContain('> GET /v2/contacts'); // the verbose paths did run
    expect(everything).toContain('sk_live_demo_****');
    for (const secret of [secretOf(full), 'CANARYSECRET0123456789', odd]) expect(everything).not.toContain(secret);

    // Files written (and their names, the rate-share leases' included): only the profile store holds the key, by design.
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((name) => name !== 'config.json');
    for (const name of files) {
      expect(name).not.toContain(secretOf(full));
      if (statSync(join(dir, name)).isDirectory()) continue;
      expect(readFileSync(join(dir, name), 'utf8')).not.toContain(secretOf(full));
    }
  });
});
