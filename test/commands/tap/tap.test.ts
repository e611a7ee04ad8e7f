import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { jsonFile, lastState, messages, records, tapConfig } from '../../helpers/tap.js';

// `cnv tap` in-process against the emulator: its option rules, its bad inputs, and the HTTP
// core's retries under it (the spawned executable's behaviour is test/e2e/tap.test.ts).
const fx = useEmulator({ rateLimit: 0 }, { faults: true });
const EMAIL_TYPES = 9;

/** In-process, with no CNV_* but a config directory of its own (the tap reads its config only). */
const tap = (args: string[]) => cnvInProcess(['tap', ...args], { env: { CNV_CONFIG_DIR: fx.configDir } });

describe('cnv tap: options and bad input (exit 2, naming the flag and file)', () => {
  it('--catalog with --properties, --discover with --about: refused', async () => {
    const config = tapConfig(fx);
    const both = await tap(['--config', config, '--catalog', config, '--properties', config]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--catalog and --properties: give one');
    const two = await tap(['--config', config, '--discover', '--about']);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain('--discover, --about and --test: give one');
  });

  it('a missing file, a state of the wrong shape, a catalog without streams, a bad start_date', async () => {
    const config = tapConfig(fx);
    const missing = await tap(['--config', '/nonexistent/config.json']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--config /nonexistent/config.json: cannot read the file (ENOENT)');
    const state = jsonFile('state.json', { bookmarks: { contacts: { cursor: 7 } } });
    const shape = await tap(['--config', config, '--state', state]);
    expect(shape.exitCode).toBe(2);
    expect(shape.stderr).toContain(`--state ${state}: bookmarks.contacts.cursor:`);
    const catalog = jsonFile('catalog.json', { nope: [] });
    const noStreams = await tap(['--config', config, '--catalog', catalog]);
    expect(noStreams.exitCode).toBe(2);
    expect(noStreams.stderr).toContain(`--catalog ${catalog}: not a catalog: no streams (it has nope)`);
    const date = await tap(['--config', tapConfig(fx, { start_date: 'last tuesday' })]);
    expect(date.exitCode).toBe(2);
    expect(date.stderr).toContain('start_date: expected an ISO 8601 time');
  });

  it('a catalog naming a stream the tap does not have: a warning, the others synced; selecting none: a warning, only the final STATE', async () => {
    const config = tapConfig(fx);
    const catalog = jsonFile('catalog.json', {
      streams: [{ tap_stream_id: 'deals', metadata: [{ breadcrumb: [], metadata: { selected: true } }] }],
    });
    const r = await tap(['--config', config, '--catalog', catalog]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('no stream "deals" in this tap');
    expect(r.stderr).toContain('selects no stream');
    expect(messages(r.stdout)).toEqual([{ type: 'STATE', value: { bookmarks: {} } }]);
  });
});

describe('cnv tap: the HTTP core', () => {
  it('5xx and 429 with Retry-After are retried: every record arrives once', async () => {
    const clean = messages((await tap(['--config', tapConfig(fx)])).stdout);
    await fx.faults({ status5xxNext: 2, rateLimitNext: 1, retryAfter: 1 });
    const r = await tap(['--config', tapConfig(fx)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    for (const stream of ['contacts', 'custom_events', 'email_events'])
      expect(records(msgs, stream).length, stream).toBe(records(clean, stream).length);
  });

  it('retries exhausted: exit 7 after the STATEs of the pages before; a rerun from the last one completes, every contact delivered', async () => {
    const config = tapConfig(fx, { max_retries: 0, page_size: 200 });
    await fx.faults({ failRate: 0.15 });
    let state: unknown;
    const seen = new Set<string>();
    for (let round = 0; round < 20 && state === undefined; round++) {
      const r = await tap(['--config', config]);
      const msgs = messages(r.stdout);
      if (r.exitCode === 0) continue; // no request failed: try again
      expect(r.exitCode, r.stderr).toBe(7);
      expect(r.stderr).toContain('error:');
      for (const c of records(msgs, 'contacts')) seen.add(c.id);
      state = lastState(msgs);
    }
    expect(state, 'a failed run that wrote a STATE first').toBeDefined();
    await fx.clearFaults();
    const rerun = await tap(['--config', config, '--state', jsonFile('state.json', state)]);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    for (const c of records(messages(rerun.stdout), 'contacts')) seen.add(c.id);
    expect(seen.size).toBe((await fx.admin('GET', '/_emulator/exports/info')).contacts);
  });
});

describe("cnv tap: the launcher's heap hold", () => {
  it('is taken once when a sync starts and checked after each page of every stream, as an export does', async () => {
    const checks: string[] = [];
    const tuning = { holdHeap: () => (checks.push('hold'), () => void checks.push('page')) };
    const r = await cnvInProcess(['tap', '--config', tapConfig(fx, { page_size: 500 })], {
      env: { CNV_CONFIG_DIR: fx.configDir },
      tuning,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const states = messages(r.stdout).filter((m) => m.type === 'STATE').length;
    // The FULL_TABLE streams' pages, which write no STATE: their summary lines count them.
    const fullTablePages = [...r.stderr.matchAll(/^(?:fields|campaigns): \d+ records?, (\d+) pages?/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    expect(fullTablePages).toBeGreaterThanOrEqual(2);
    // A STATE after each page of the others, one after ACTIVATE_VERSION and the final one.
    expect(checks).toEqual(['hold', ...Array<string>(states - 2 + fullTablePages).fill('page')]);
    expect(states - 2).toBeGreaterThan(EMAIL_TYPES);
  });
});
