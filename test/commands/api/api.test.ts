import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES,
  FIXTURE_CAMPAIGNS,
  FIXTURE_CONTACTS,
  FIXTURE_WORKFLOWS,
} from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { emulatorFixture } from '../../helpers/emulator.js';
import { FakeClock } from '../../helpers/fake-clock.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
beforeAll(async () => {
  // No server-side limit: the --paginate walk below sends ~1,500 requests on a fake clock.
  fx = await emulatorFixture({ rateLimit: 0 });
});
afterAll(() => fx.close());
beforeEach(async () => {
  await fx.clearFaults();
  await fx.resetStats();
});

const activeCampaigns = () =>
  [...fx.emulator.store.business('acme').campaigns.values()].filter((c) => !c.archived).length;
const requests = async () => ((await fx.stats()) as { total: number }).total;

describe('cnv api (in-process)', () => {
  it('GET: -f goes to the query string; the answer is printed as it came, envelope and all', async () => {
    const res = await cnvInProcess(['api', 'GET', '/v2/campaigns', '-f', 'limit=2'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body.data.campaigns).toHaveLength(2);
    expect(body.pagination.nextCursor).toEqual(expect.any(String));
    expect(res.stderr).toBe('');
  });

  it('the /v2 prefix and the leading slash may be left out', async () => {
    const res = await cnvInProcess(
      ['api', 'get', 'contacts', '-f', `email=${FIXTURE_CONTACTS.ada.email}`, '-q', 'data.contact.cnvContactId'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toBe(`${FIXTURE_CONTACTS.ada.id}\n`);
  });

  it('POST: -F is typed (numbers, booleans, nested keys) and -f stays a string', async () => {
    const email = 'api.typed@example.com';
    const res = await cnvInProcess(
      [
        'api',
        'POST',
        '/v2/contacts',
        '-f',
        `email=${email}`,
        '-f',
        'fields[city]=10115',
        '-F',
        'fields[score]=42',
        '-F',
        'updateOnly=false',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).data.contactCreated).toBe(true);
    const [stored] = await fx.admin('GET', `/_emulator/state/contacts?email=${email}`);
    expect(stored.fields.city).toBe('10115');
    expect(stored.fields.score).toBe(42);
  });

  it("-F key=@file sends the file's text; --input sends a JSON file as the body", async () => {
    const dir = fx.configDir;
    writeFileSync(join(dir, 'note.txt'), 'from a file');
    writeFileSync(
      join(dir, 'body.json'),
      JSON.stringify({ event: 'api_input', email: FIXTURE_CONTACTS.ada.email, clientEventId: 'api-input-1' }),
    );
    const viaFile = await cnvInProcess(['api', 'POST', '/v2/events', '--input', join(dir, 'body.json')], {
      env: fx.env,
    });
    expect(viaFile.exitCode).toBe(0);
    const viaField = await cnvInProcess(
      [
        'api',
        'POST',
        '/v2/events',
        '-f',
        'event=api_field',
        '-f',
        `email=${FIXTURE_CONTACTS.ada.email}`,
        '-F',
        `data[note]=@${join(dir, 'note.txt')}`,
      ],
      { env: fx.env },
    );
    expect(viaField.exitCode).toBe(0);
    const events = await fx.admin('GET', `/_emulator/state/events?email=${FIXTURE_CONTACTS.ada.email}`);
    expect(events.find((e: { eventName: string }) => e.eventName === 'api_input')).toBeTruthy();
    expect(events.find((e: { eventName: string }) => e.eventName === 'api_field').data).toEqual({
      note: 'from a file',
    });
  });

  it('--input - reads the body from stdin (a DELETE with a JSON body)', async () => {
    const audience = FIXTURE_AUDIENCES.vip.id;
    const res = await cnvInProcess(['api', 'DELETE', `/v2/audiences/${audience}/contacts`, '--input', '-'], {
      env: fx.env,
      input: JSON.stringify({ email: FIXTURE_CONTACTS.ada.email }),
    });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).data).toEqual({ removed: true, cnvContactId: FIXTURE_CONTACTS.ada.id });
  });

  it('--input that is not JSON is exit 2 naming the flag, file and line, and nothing is sent', async () => {
    const file = join(fx.configDir, 'broken.json');
    writeFileSync(file, '{\n  "email": "a@example.com",\n  oops\n}');
    const res = await cnvInProcess(['api', 'POST', '/v2/contacts', '--input', file], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      new RegExp(`^error: usage: --input ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 3: not valid JSON`, 'm'),
    );
    expect(await requests()).toBe(0);
  });

  it('a body nested 20,000 levels (--input, or -f key parts) is exit 2 naming the flag, not a crash; nothing is sent', async () => {
    const file = join(fx.configDir, 'deep.json');
    writeFileSync(file, `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
    const input = await cnvInProcess(['api', 'POST', '/v2/contacts', '--input', file], { env: fx.env });
    expect([input.exitCode, input.stderr.split('\n')[0]]).toEqual([
      2,
      `error: usage: --input ${file}: nested deeper than 100 levels`,
    ]);
    for (const method of ['POST', 'GET']) {
      const keys = await cnvInProcess(['api', method, '/v2/contacts', '-f', `a${'[x]'.repeat(20_000)}=1`], {
        env: fx.env,
      });
      expect(keys.exitCode, keys.stderr).toBe(2);
      expect(keys.stderr).toMatch(/^error: usage: -f a\[x\]\[x\].*: a key nests at most 100 levels$/m);
    }
    expect(await requests()).toBe(0);
  });

  it('-f __proto__[email]=x is a member named __proto__, sent as such: no prototype is touched, no crash', async () => {
    const res = await cnvInProcess(
      [
        'api',
        'POST',
        '/v2/contacts',
        '-f',
        '__proto__[email]=x',
        '-f',
        'email=proto@example.com',
        '-F',
        'constructor[prototype][polluted]=true',
        '--dry-run',
      ],
      { env: fx.env },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).body).toEqual(
      JSON.parse(
        '{"__proto__":{"email":"x"},"email":"proto@example.com","constructor":{"prototype":{"polluted":true}}}',
      ),
    );
    expect(({} as Record<string, unknown>).email).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const sent = await cnvInProcess(['api', 'POST', '/v2/contacts', '-f', '__proto__[email]=x'], { env: fx.env });
    expect(sent.stderr).not.toMatch(/internal/);
    expect([3, 0]).toContain(sent.exitCode);
  });

  it('--paginate (GET) follows the cursor and prints every campaign once, one JSON line each', async () => {
    const res = await cnvInProcess(['api', 'GET', '/v2/campaigns', '-F', 'limit=3', '--paginate'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(activeCampaigns());
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const stats = (await fx.stats()) as { total: number };
    expect(stats.total).toBe(Math.ceil(activeCampaigns() / 3) + (activeCampaigns() % 3 === 0 ? 1 : 0));
  });

  it('--paginate --slurp gives one array; -q then selects from it', async () => {
    const res = await cnvInProcess(
      ['api', 'GET', 'campaigns', '-F', 'limit=4', '--paginate', '--slurp', '-q', 'length(@)'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout)).toBe(activeCampaigns());
    const names = await cnvInProcess(['api', 'GET', 'campaigns', '--paginate', '-q', 'name'], { env: fx.env });
    expect(names.stdout.split('\n')).toContain(FIXTURE_CAMPAIGNS.springWebinar.name);
  });

  it('--paginate (POST) puts the cursor in the body and drops the custom event window it carries', async () => {
    const all = await cnvInProcess(
      ['export', 'custom-events', '--since', '2024-01-01', '--no-state', '-o', 'ndjson', '--quiet'],
      { env: fx.env },
    );
    const expected = all.stdout.trim().split('\n').length;
    // One request per event: the client's own rate limit (195/s) would hold it ~8 s of real time.
    const res = await cnvInProcess(
      [
        'api',
        'POST',
        '/v2/exports/custom-events',
        '-f',
        'occurredAt[start]=2024-01-01T00:00:00Z',
        '-F',
        'limit=1',
        '--paginate',
      ],
      { env: fx.env, clock: new FakeClock() },
    );
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(expected);
  });

  it('--include prints the status line and headers before the body', async () => {
    const res = await cnvInProcess(['api', 'GET', `/v2/campaigns/${FIXTURE_CAMPAIGNS.springWebinar.id}`, '--include'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    const [head, body] = res.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP 200 OK\ncontent-type: application\/json/);
    expect(JSON.parse(body).data.campaign.id).toBe(FIXTURE_CAMPAIGNS.springWebinar.id);
  });

  it('--include shows an error answer as it came on stdout, and still exits by its code', async () => {
    const res = await cnvInProcess(['api', 'GET', '/v2/campaigns/c4000000-0000-4000-8000-0000000000ff', '--include'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(5);
    const [head, body] = res.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP 404 Not Found\n/);
    expect(JSON.parse(body).error.code).toBe('campaign_not_found');
    expect(res.stderr).toMatch(/^error: campaign_not_found: /m);
  });

  it('errors exit by the usual codes with the usual line: 404 is 5, a bad key 4', async () => {
    const missing = await cnvInProcess(['api', 'GET', '/v2/campaigns/c4000000-0000-4000-8000-0000000000ff'], {
      env: fx.env,
    });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/^error: campaign_not_found: /m);
    expect(missing.stdout).toBe('');
    const badKey = await cnvInProcess(['api', 'GET', '/v2/campaigns'], {
      env: { ...fx.env, CNV_API_KEY: 'sk_live_nope_0000000000000000' },
    });
    expect(badKey.exitCode).toBe(4);
  });

  it('uses the profile in force: a profile with the basic key gets 403 export_not_enabled (exit 4)', async () => {
    const env = { CNV_CONFIG_DIR: fx.configDir };
    expect(
      (await cnvInProcess(['config', 'set-key', '--profile', 'basic'], { env, input: fx.emulator.keys.basic }))
        .exitCode,
    ).toBe(0);
    expect((await cnvInProcess(['config', 'set-url', fx.emulator.url, '--profile', 'basic'], { env })).exitCode).toBe(
      0,
    );
    const res = await cnvInProcess(
      ['api', 'GET', '/v2/contacts', '-f', 'email=ada@example.com', '--profile', 'basic'],
      { env },
    );
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: export_not_enabled: /m);
  });

  it('--dry-run prints a write request with the key masked and sends nothing', async () => {
    const res = await cnvInProcess(['api', 'POST', '/v2/contacts', '-f', 'email=dry@example.com', '--dry-run'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    const printed = JSON.parse(res.stdout);
    expect(printed).toMatchObject({ dryRun: true, method: 'POST', body: { email: 'dry@example.com' } });
    expect(res.stdout).not.toContain(fx.env.CNV_API_KEY);
    expect(await requests()).toBe(0);
  });

  it('--verbose logs the request on stderr, key never shown', async () => {
    const res = await cnvInProcess(['api', 'GET', '/v2/campaigns', '--verbose', '--include'], { env: fx.env });
    expect(res.stderr).toMatch(/^> GET \/v2\/campaigns attempt=1$/m);
    expect(res.stdout + res.stderr).not.toContain(fx.env.CNV_API_KEY);
  });

  it('an unsafe POST (workflow trigger) is not sent again after a 500; an idempotent one (upsert) is', async () => {
    await fx.faults({ failNext: 1 });
    const trigger = await cnvInProcess(
      [
        'api',
        'POST',
        `/v2/workflows/${FIXTURE_WORKFLOWS.welcome.id}/trigger`,
        '-f',
        `email=${FIXTURE_CONTACTS.ada.email}`,
      ],
      { env: fx.env },
    );
    expect(trigger.exitCode).toBe(7);
    expect(await requests()).toBe(1);
    await fx.resetStats();
    await fx.faults({ failNext: 1 });
    const upsert = await cnvInProcess(['api', 'POST', '/v2/contacts', '-f', `email=${FIXTURE_CONTACTS.ada.email}`], {
      env: fx.env,
    });
    expect(upsert.exitCode).toBe(0);
    expect(await requests()).toBe(2);
  });

  it.each([
    [['GET', 'https://evil.example/v2/campaigns'], /not a URL/],
    [['GET', '/v2/../_emulator/stats'], /"\.\." segments/],
    [['FETCH', '/v2/campaigns'], /method "FETCH": expected one of GET, POST, PUT, PATCH, DELETE/],
    [['GET', '/v2/campaigns', '--input', '-'], /--input: a GET request sends no body/],
    [['GET', '/v2/campaigns', '--slurp'], /--slurp goes with --paginate/],
    [['GET', '/v2/campaigns', '-o', 'csv'], /-o csv: cnv api prints JSON/],
    [['POST', '/v2/contacts', '-f', 'novalue'], /-f novalue: expected key=value/],
    [
      ['POST', '/v2/contacts', '-F', 'email=@/nonexistent/x'],
      /^error: usage: -F email=@\/nonexistent\/x: cannot read it \(ENOENT\)$/m,
    ],
  ])('bad input %j is exit 2, nothing sent', async (args, message) => {
    const res = await cnvInProcess(['api', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(await requests()).toBe(0);
  });
});
