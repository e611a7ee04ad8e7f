import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { tempConfigDir } from './cli.js';

/** One emulator per test file, and an env pointing the CLI at it with the full-access key. */
export async function emulatorFixture(opts: EmulatorOptions = {}) {
  const emulator: Emulator = await startEmulator({ port: 0, quiet: true, ...opts });
  const configDir = tempConfigDir();
  const env = { CNV_BASE_URL: emulator.url, CNV_API_KEY: emulator.keys.full, CNV_CONFIG_DIR: configDir };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(emulator.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  };
  return {
    emulator,
    env,
    configDir,
    admin,
    faults: (body: Record<string, unknown>) => admin('POST', '/_emulator/faults', body),
    clearFaults: () => admin('DELETE', '/_emulator/faults'),
    stats: () => admin('GET', '/_emulator/stats'),
    resetStats: () => admin('POST', '/_emulator/stats/reset'),
    close: () => emulator.close(),
  };
}
