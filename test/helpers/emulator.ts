import { afterAll, beforeAll, beforeEach } from 'vitest';
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
  /** A request of the API itself with the full key, which must succeed (a field made, a contact written). */
  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(emulator.url + path, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': emulator.keys.full },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    emulator,
    env,
    configDir,
    admin,
    api,
    faults: (body: Record<string, unknown>) => admin('POST', '/_emulator/faults', body),
    clearFaults: () => admin('DELETE', '/_emulator/faults'),
    stats: () => admin('GET', '/_emulator/stats'),
    resetStats: () => admin('POST', '/_emulator/stats/reset'),
    close: () => emulator.close(),
  };
}

export type EmulatorFixture = Awaited<ReturnType<typeof emulatorFixture>>;

/**
 * One emulator for the whole test file: started before its first test, stopped after its last,
 * with faults (and, with `stats`, the request counts) cleared before each test when asked.
 * Returns the fixture itself, usable from inside tests and hooks.
 */
export function useEmulator(
  opts: EmulatorOptions = {},
  before: { faults?: boolean; stats?: boolean } = {},
): EmulatorFixture {
  let fx: EmulatorFixture | undefined;
  beforeAll(async () => {
    fx = await emulatorFixture(opts);
  });
  afterAll(() => fx?.close());
  if (before.faults || before.stats) {
    beforeEach(async () => {
      if (before.faults) await fx!.clearFaults();
      if (before.stats) await fx!.resetStats();
    });
  }
  return new Proxy({} as EmulatorFixture, {
    get(_, key) {
      if (!fx) throw new Error('the emulator starts in beforeAll: use it inside a test or a hook');
      return Reflect.get(fx, key);
    },
  });
}

/**
 * Before each test of the describe block it is called in: the emulator's faults cleared and its
 * data seeded again (a few hundred ms: only the groups whose tests write take it).
 */
export function reseedBeforeEach(fx: EmulatorFixture): void {
  beforeEach(async () => {
    await fx.clearFaults();
    await fx.admin('POST', '/_emulator/reset');
  });
}
