import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { jsonFile, messages, records, spawnTap, tap, tapConfig } from '../helpers/tap.js';

// What tap-cnv tells on stderr, and the Meltano SDK's habits it answers to, through the
// executable (docs/singer.md, "Logs and metrics", "Errors"): a summary line and METRIC lines per
// stream, --about --format markdown, --test, messages that name the tap's settings and the stream.
const fx = useEmulator({ rateLimit: 0 }, { faults: true, stats: true });

const STREAMS = ['contacts', 'custom_events', 'email_events', 'fields', 'campaigns'];

/** The METRIC lines of a run's stderr, parsed. */
function metrics(
  stderr: string,
): Array<{ type: string; metric: string; value: number; tags: Record<string, unknown> }> {
  return [...stderr.matchAll(/^INFO METRIC: (.*)$/gm)].map((m) => JSON.parse(m[1]));
}

describe('logs and metrics', () => {
  it('a summary line per stream (records, pages, requests, seconds) and METRIC lines as the SDK writes them', async () => {
    const r = await tap(['--config', tapConfig(fx, { page_size: 500 })]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const points = metrics(r.stderr);
    let requests = 0;
    for (const stream of STREAMS) {
      const summary = new RegExp(
        `^${stream}: (\\d+) records?, (\\d+) pages?, (\\d+) requests?, \\d+\\.\\d s$`,
        'm',
      ).exec(r.stderr);
      expect(summary, `${stream} in ${r.stderr}`).not.toBeNull();
      expect(Number(summary![1]), stream).toBe(records(msgs, stream).length);
      expect(Number(summary![2]), stream).toBeGreaterThan(0);
      requests += Number(summary![3]);
      const counted = points.filter((p) => p.metric === 'record_count' && p.tags.stream === stream);
      expect(counted.length, stream).toBeGreaterThan(0);
      expect(counted.every((p) => p.type === 'counter' && typeof p.tags.pid === 'number')).toBe(true);
      expect(
        counted.reduce((sum, p) => sum + p.value, 0),
        stream,
      ).toBe(records(msgs, stream).length);
    }
    const timed = points.filter((p) => p.metric === 'http_request_duration');
    expect(timed.length).toBe(requests);
    expect((await fx.stats()).total).toBe(requests);
    expect(timed[0]).toMatchObject({
      type: 'timer',
      tags: { stream: 'contacts', endpoint: '/v2/fields', http_status_code: 200, status: 'succeeded' },
    });
    expect(timed.every((p) => typeof p.value === 'number' && p.value >= 0)).toBe(true);
  });

  it("--about --format markdown: the SDK's document (capabilities, a settings table)", async () => {
    const r = await tap(['--about', '--format', 'markdown']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# `tap-cnv`\n/);
    expect(r.stdout).toContain('## Capabilities\n\n- `catalog`\n');
    expect(r.stdout).toContain('| Setting | Required | Default | Description |');
    expect(r.stdout).toMatch(/^\| api_key \| False \| None \| The account's API key/m);
    expect(r.stdout).toMatch(/^\| flattening_max_depth \|/m);
    const other = await tap(['--about', '--format', 'csv']);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("--format csv: the tap's own document is --about's, as json or markdown");
  });

  it('--test: one request of one row per selected stream, SCHEMA and RECORD, no STATE; exit 0 when the account answers', async () => {
    const r = await tap(['--config', tapConfig(fx), '--test']);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    expect(msgs.some((m) => m.type === 'STATE' || m.type === 'ACTIVATE_VERSION')).toBe(false);
    for (const stream of STREAMS) {
      expect(
        msgs.filter((m) => m.type === 'SCHEMA' && m.stream === stream),
        stream,
      ).toHaveLength(1);
      // At most one: a first page may be empty (custom events: a window walked from 1970 in 7-day segments).
      expect(records(msgs, stream).length, stream).toBeLessThanOrEqual(1);
    }
    expect(records(msgs, 'contacts')).toHaveLength(1);
    expect((await fx.stats()).byRoute).toEqual({
      'GET /v2/fields': 2,
      'POST /v2/exports/contacts': 1,
      'POST /v2/exports/custom-events': 1,
      'POST /v2/exports/email-events': 1,
      'GET /v2/campaigns': 1,
    });
    const schemas = await tap(['--config', tapConfig(fx), '--test', 'schema']);
    expect(schemas.exitCode, schemas.stderr).toBe(0);
    expect(messages(schemas.stdout).map((m) => m.type)).toEqual(STREAMS.map(() => 'SCHEMA'));
  });
});

describe("errors in the tap's words", () => {
  it('a refused key: the hint names api_key and TAP_CNV_API_KEY (also under --test), never cnv config set-key or CNV_API_KEY', async () => {
    for (const extra of [[], ['--test']]) {
      const r = await tap(['--config', tapConfig(fx, {}, 'sk_live_demo_wrongwrongwrongwrong'), ...extra]);
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toMatch(/^error: .*: contacts: /m);
      expect(r.stderr).toContain("hint: check api_key in the tap's config");
      expect(r.stderr).toContain('TAP_CNV_API_KEY');
      expect(r.stderr).not.toMatch(/set-key|CNV_API_KEY\b(?!.)|cnv doctor/);
      expect(r.stderr).not.toMatch(/[^_]CNV_API_KEY/);
    }
  });

  it('a bad base_url or api_key is named as the setting, not as --base-url or --api-key', async () => {
    const url = await tap([
      '--config',
      jsonFile('c.json', { base_url: 'http://api.example.com', api_key: 'sk_live_a_b' }),
    ]);
    expect(url.exitCode).toBe(2);
    expect(url.stderr).toMatch(/plain http is refused for api\.example\.com \(from base_url of --config .*c\.json\)/);
    const key = await tap(['--config', tapConfig(fx, {}, 'sk_live_demo bad')]);
    expect(key.exitCode).toBe(2);
    expect(key.stderr).toMatch(/the API key from api_key of --config .*config\.json contains whitespace/);
    const shape = await tap(['--config', tapConfig(fx, {}, 'not-a-key-shape'), '--test']);
    expect(shape.stderr).toMatch(/warning: the API key from api_key of --config .* does not have the form/);
    const creds = await tap([
      '--config',
      jsonFile('c.json', { base_url: 'https://u:p@api.example.com', api_key: 'sk_live_a_b' }),
    ]);
    expect(creds.exitCode).toBe(2);
    expect(creds.stderr).toMatch(/from base_url of --config .*c\.json contains a user name or password/);
    expect(creds.stderr).toContain(
      "hint: remove them from the URL: the API is authenticated by the API key alone (api_key in the tap's config, or TAP_CNV_API_KEY)",
    );
    for (const r of [url, key, shape, creds])
      expect(r.stderr).not.toMatch(/--base-url|--api-key|set-key|[^_]CNV_API_KEY/);
  });

  it('a number too big for the tap says which value it is', async () => {
    const config = jsonFile(
      'c.json',
      `{"base_url":"${fx.emulator.url}","api_key":"${fx.emulator.keys.full}","page_size":99999999999999999999}`,
    );
    const r = await tap(['--config', config]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--config .*: page_size: 99999999999999999999 is too big \(at most 9007199254740991\)/);
    expect(r.stderr).not.toContain('ExactNumber');
    const state = jsonFile(
      's.json',
      '{"bookmarks":{"custom_events":{"cursor":null,"cursorAt":null,"seen":[],"rows":1e400,"pages":0}}}',
    );
    const s = await tap(['--config', tapConfig(fx), '--state', state]);
    expect(s.exitCode).toBe(2);
    expect(s.stderr).toMatch(/--state .*: bookmarks\.custom_events\.rows: 1e400 cannot be held exactly/);
  });

  it('a failure names its stream', async () => {
    const catalog = jsonFile('catalog.json', {
      streams: [{ tap_stream_id: 'campaigns', metadata: [{ breadcrumb: [], metadata: { selected: true } }] }],
    });
    await fx.faults({ failNext: 1 });
    const r = await tap(['--config', tapConfig(fx, { max_retries: 0 }), '--catalog', catalog]);
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^error: [a-z_]+: campaigns: /m);
  });

  it('a cursor refused mid-run (no --state) is the server\'s, never "the state\'s cursor"', async () => {
    // Slow pages: the run is on its second page of contacts when the emulator's epoch changes.
    await fx.faults({ latencyMs: 150 });
    const child = spawnTap(['--config', tapConfig(fx, { page_size: 100, max_retries: 0 })]);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    while (!out.includes('"type":"STATE"') && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    await fx.admin('POST', '/_emulator/reset');
    const done = await child;
    await fx.clearFaults();
    expect(done.exitCode).toBe(3);
    const stderr = String(done.stderr);
    expect(stderr).toContain('contacts: the server refused the cursor it gave on the page before');
    expect(stderr).not.toContain("state's cursor");
  });
});
