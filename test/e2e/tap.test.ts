import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLosslessNumber } from 'lossless-json';
import { beforeEach, describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import {
  apiRequest,
  jsonFile,
  lastState,
  messages,
  records,
  spawnTap,
  tap,
  tapConfig,
  type Message,
} from '../helpers/tap.js';

// `cnv tap` / tap-cnv through the package's executable, against the emulator: the Singer
// contract (docs/singer.md) as a target and Meltano read it.
const fx = useEmulator({ rateLimit: 0 });

// Faults and counts cleared before each test. Once more when the first try meets a socket the
// emulator closed while idle (its keep-alive timeout, 10 s, can pass during a long run here).
beforeEach(async () => {
  for (let attempt = 1; ; attempt++) {
    try {
      await fx.clearFaults();
      await fx.resetStats();
      return;
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
});

const EMAIL_TYPES = 9;
/** The streams read whole every run (each with its RECORDs and ACTIVATE_VERSION). */
const FULL_TABLE = ['fields', 'campaigns'];

const api = (method: string, path: string, body: unknown) => apiRequest(fx, method, path, body);

/** A catalog from --discover with only `streams` selected (Meltano's metadata: breadcrumb [] selected). */
async function catalogSelecting(config: string, streams: string[]): Promise<string> {
  const discovered = await tap(['--config', config, '--discover']);
  expect(discovered.exitCode, discovered.stderr).toBe(0);
  const catalog = JSON.parse(discovered.stdout);
  for (const s of catalog.streams)
    s.metadata.find((m: Message) => m.breadcrumb.length === 0).metadata.selected = streams.includes(s.tap_stream_id);
  return jsonFile('catalog.json', catalog);
}

describe('--about and --discover', () => {
  it('--about: name, capabilities and the settings schema, api_key secret (also with --format json)', async () => {
    for (const args of [['--about'], ['--about', '--format', 'json']]) {
      const r = await tap(args);
      expect(r.exitCode, r.stderr).toBe(0);
      const about = JSON.parse(r.stdout);
      expect(about.name).toBe('tap-cnv');
      expect(about.capabilities).toEqual(['catalog', 'discover', 'state', 'about', 'stream-maps', 'flattening']);
      expect(about.settings.properties.api_key).toMatchObject({ type: 'string', secret: true });
      expect(Object.keys(about.settings.properties)).toEqual(
        expect.arrayContaining(['api_key', 'base_url', 'start_date']),
      );
    }
  });

  it('discovery: five streams, their keys, replication keys and metadata; contact fields by key with their types', async () => {
    const r = await tap(['--config', tapConfig(fx), '--discover']);
    expect(r.exitCode, r.stderr).toBe(0);
    const { streams } = JSON.parse(r.stdout);
    expect(
      streams.map((s: Message) => [s.tap_stream_id, s.key_properties, s.replication_key, s.replication_method]),
    ).toEqual([
      ['contacts', ['id'], 'updatedAt', 'INCREMENTAL'],
      ['custom_events', ['eventId'], 'occurredAt', 'INCREMENTAL'],
      ['email_events', ['eventId'], 'occurredAt', 'INCREMENTAL'],
      ['fields', ['key'], undefined, 'FULL_TABLE'],
      ['campaigns', ['id'], undefined, 'FULL_TABLE'],
    ]);
    expect(streams[3].metadata[0].metadata).toMatchObject({
      'table-key-properties': ['key'],
      'forced-replication-method': 'FULL_TABLE',
    });
    expect(streams[3].metadata[0].metadata['valid-replication-keys']).toBeUndefined();
    const root = streams[0].metadata.find((m: Message) => m.breadcrumb.length === 0).metadata;
    expect(root).toMatchObject({
      'table-key-properties': ['id'],
      'valid-replication-keys': ['updatedAt'],
      'forced-replication-method': 'INCREMENTAL',
      inclusion: 'available',
    });
    const props = streams[0].schema.properties;
    expect(props.score).toEqual({ type: ['number', 'null'], title: 'Score' });
    expect(props.vip).toEqual({ type: ['boolean', 'null'], title: 'VIP' });
    expect(props.birthday).toEqual({ type: ['string', 'null'], format: 'date', title: 'Birthday' });
    expect(props.lastSeenAt).toEqual({ type: ['string', 'null'], format: 'date-time', title: 'Last seen at' });
    expect(props.firstName).toEqual({ type: ['string', 'null'], title: 'First name' });
    expect(props.unresolvedFields.type).toEqual(['object', 'null']);
    expect(props['First name']).toBeUndefined();
  });
});

describe('sync', () => {
  it('messages in order: SCHEMA before RECORDs, a STATE after each page counting exactly the records before it, ACTIVATE_VERSION, a final STATE', async () => {
    const r = await tap(['--config', tapConfig(fx, { page_size: 100 })]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const seenSchema = new Set<string>();
    let contactRecords = 0;
    let statesInContacts = 0;
    for (const m of msgs) {
      if (m.type === 'SCHEMA') seenSchema.add(m.stream);
      if (m.type === 'RECORD') expect(seenSchema.has(m.stream), `RECORD of ${m.stream} before its SCHEMA`).toBe(true);
      if (m.type === 'RECORD' && m.stream === 'contacts') contactRecords++;
      if (m.type === 'STATE' && m.value.bookmarks.contacts && !seenSchema.has('custom_events')) {
        // The bookmark counts the rows its pages delivered: never one more than stdout holds before it.
        expect(m.value.bookmarks.contacts.rows).toBe(contactRecords);
        statesInContacts++;
      }
    }
    expect(statesInContacts).toBeGreaterThan(contactRecords / 100);
    expect(msgs.at(-1)!.type).toBe('STATE');
    const activate = msgs.findIndex((m) => m.type === 'ACTIVATE_VERSION');
    const lastContact = msgs.findLastIndex((m) => m.type === 'RECORD' && m.stream === 'contacts');
    expect(activate).toBeGreaterThan(lastContact);
    const version = msgs[activate].version;
    expect(msgs.filter((m) => m.type === 'RECORD' && m.stream === 'contacts').every((m) => m.version === version)).toBe(
      true,
    );
    const info = await fx.admin('GET', '/_emulator/exports/info');
    expect(new Set(records(msgs, 'contacts').map((c) => c.id)).size).toBe(info.contacts);
    expect(records(msgs, 'custom_events').length).toBe(info.customEvents);
    expect(records(msgs, 'email_events').length).toBe(info.emailEvents);
    expect(new Set(records(msgs, 'email_events').map((e) => e.eventType)).size).toBe(EMAIL_TYPES);
    expect(Object.keys(lastState(msgs)!.bookmarks.email_events.types)).toHaveLength(EMAIL_TYPES);
  });

  it('state round trip: a run from the final STATE emits no RECORD of an INCREMENTAL stream, then only what changed (no ACTIVATE_VERSION of contacts)', async () => {
    const config = tapConfig(fx);
    const first = await tap(['--config', config]);
    expect(first.exitCode, first.stderr).toBe(0);
    const state = jsonFile('state.json', lastState(messages(first.stdout)));
    const again = await tap(['--config', config, '--state', state]);
    expect(again.exitCode, again.stderr).toBe(0);
    const msgs = messages(again.stdout);
    expect(msgs.filter((m) => m.type === 'RECORD' && !FULL_TABLE.includes(m.stream))).toEqual([]);
    expect(msgs.filter((m) => m.type === 'SCHEMA').map((m) => m.stream)).toEqual([
      'contacts',
      'custom_events',
      'email_events',
      ...FULL_TABLE,
    ]);
    const up = await cnv(['contacts', 'upsert', '--email', 'round-trip@example.com', '--field', 'city=Oslo'], {
      env: fx.env,
    });
    expect(up.exitCode, up.stderr).toBe(0);
    const third = await tap(['--config', config, '--state', jsonFile('state.json', lastState(msgs))]);
    const changed = messages(third.stdout);
    expect(records(changed, 'contacts').map((c) => [c.email, c.city])).toEqual([['round-trip@example.com', 'Oslo']]);
    expect(changed.some((m) => m.type === 'ACTIVATE_VERSION' && m.stream === 'contacts')).toBe(false);
    expect(changed.find((m) => m.type === 'RECORD').version).toBe(
      messages(first.stdout).find((m) => m.type === 'ACTIVATE_VERSION').version,
    );
  });

  it('selection: a stream the catalog does not select is never requested (nor are the field definitions, without contacts)', async () => {
    const config = tapConfig(fx);
    const catalog = await catalogSelecting(config, ['custom_events']);
    await fx.resetStats();
    for (const flag of ['--catalog', '--properties']) {
      const r = await tap(['--config', config, flag, catalog]);
      expect(r.exitCode, r.stderr).toBe(0);
      const msgs = messages(r.stdout);
      expect(new Set(msgs.filter((m) => m.type !== 'STATE').map((m) => m.stream))).toEqual(new Set(['custom_events']));
      expect(Object.keys(lastState(msgs)!.bookmarks)).toEqual(['custom_events']);
    }
    const stats = await fx.stats();
    expect(Object.keys(stats.byRoute)).toEqual(['POST /v2/exports/custom-events']);
  });

  it('selection of properties: one deselected (Meltano: !contacts.email) is in no SCHEMA nor RECORD; the key cannot be', async () => {
    const config = tapConfig(fx, { page_size: 1000 });
    const discover = await tap(['--config', config, '--discover']);
    expect(discover.exitCode, discover.stderr).toBe(0);
    const discovered = JSON.parse(discover.stdout);
    const deselect = (stream: string, property: string) => {
      const s = discovered.streams.find((x: Message) => x.tap_stream_id === stream);
      s.metadata.find((m: Message) => m.breadcrumb[1] === property).metadata.selected = false;
    };
    for (const [stream, property] of [
      ['contacts', 'email'],
      ['contacts', 'city'],
      ['contacts', 'id'],
      ['custom_events', 'data'],
    ])
      deselect(stream, property);
    discovered.streams[2].metadata.find((m: Message) => m.breadcrumb.length === 0).metadata.selected = false;
    const r = await tap(['--config', config, '--catalog', jsonFile('catalog.json', discovered)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const schemas = Object.fromEntries(
      msgs.filter((m) => m.type === 'SCHEMA').map((m) => [m.stream, m.schema.properties]),
    );
    expect(Object.keys(schemas), r.stderr).toEqual(['contacts', 'custom_events', ...FULL_TABLE]);
    expect(schemas.contacts.email).toBeUndefined();
    expect(schemas.contacts.city).toBeUndefined();
    expect(schemas.contacts.id).toBeDefined();
    expect(schemas.custom_events.data).toBeUndefined();
    const contacts = records(msgs, 'contacts');
    expect(contacts.length).toBeGreaterThan(0);
    expect(contacts.every((c) => !('email' in c) && !('city' in c) && typeof c.id === 'string')).toBe(true);
    expect(contacts.some((c) => c.firstName !== undefined)).toBe(true);
    const events = records(msgs, 'custom_events');
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => !('data' in e) && typeof e.eventId === 'string')).toBe(true);
  });

  it('big numbers exact: 2^53+1 and 50 digits reach the RECORD as written', async () => {
    const big = '9007199254740993';
    const fifty = '12345678901234567890123456789012345678901234567890';
    for (const [email, score] of [
      ['big@example.com', big],
      ['fifty@example.com', fifty],
    ]) {
      const up = await cnv(['contacts', 'upsert', '--email', email, '--field', `score=${score}`], { env: fx.env });
      expect(up.exitCode, up.stderr).toBe(0);
    }
    const r = await tap(['--config', tapConfig(fx)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const byEmail = new Map(records(messages(r.stdout, true), 'contacts').map((c) => [c.email, c.score]));
    for (const [email, score] of [
      ['big@example.com', big],
      ['fifty@example.com', fifty],
    ]) {
      expect(isLosslessNumber(byEmail.get(email))).toBe(true);
      expect(String(byEmail.get(email))).toBe(score);
    }
    expect(r.stdout).toContain(`"score":${fifty}`);
  });

  it('a field created after discovery is in the SCHEMA at sync time; one created during the run gets a new SCHEMA before the first record with it', async () => {
    const config = tapConfig(fx, { page_size: 100 });
    const discovered = JSON.parse((await tap(['--config', config, '--discover'])).stdout);
    expect(discovered.streams[0].schema.properties.tier).toBeUndefined();
    const created = await cnv(
      ['fields', 'create', '--label', 'Tier', '--object-type', 'CONTACT', '--data-type', 'STRING', '--key', 'tier'],
      { env: fx.env },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    // Slow pages (50 rows, 100 ms each): the run is still on contacts when the field is made.
    await fx.faults({ latencyMs: 100 });
    const child = spawnTap(['--config', tapConfig(fx, { page_size: 50 })]);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    // Once the run has read the definitions (its first SCHEMA is out): a new field, and a contact with it.
    while (!out.includes('"type":"SCHEMA"')) await new Promise((r) => setTimeout(r, 20));
    await api('POST', '/v2/fields', {
      key: 'loyaltyPoints',
      label: 'Loyalty points',
      objectType: 'CONTACT',
      dataType: 'NUMBER',
    });
    await api('POST', '/v2/contacts', { email: 'loyal@example.com', fields: { loyaltyPoints: 7, tier: 'gold' } });
    // The events are not what this test is about: at full speed once contacts are done.
    while (!out.includes('"type":"ACTIVATE_VERSION"') && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    await fx.clearFaults();
    const done = await child;
    expect(done.exitCode, String(done.stderr)).toBe(0);
    const msgs = messages(String(done.stdout));
    const schemas = msgs.map((m, i) => [m, i] as const).filter(([m]) => m.type === 'SCHEMA' && m.stream === 'contacts');
    expect(schemas[0][0].schema.properties.tier).toEqual({ type: ['string', 'null'], title: 'Tier' });
    expect(schemas[0][0].schema.properties.loyaltyPoints).toBeUndefined();
    expect(schemas).toHaveLength(2);
    expect(schemas[1][0].schema.properties.loyaltyPoints).toEqual({
      type: ['number', 'null'],
      title: 'Loyalty points',
    });
    const loyal = msgs.findIndex((m) => m.type === 'RECORD' && m.record.email === 'loyal@example.com');
    expect(loyal).toBeGreaterThan(schemas[1][1]);
    expect(msgs[loyal].record).toMatchObject({ loyaltyPoints: 7, tier: 'gold' });
    expect(msgs[loyal].record.unresolvedFields).toBeUndefined();
  });

  it('start_date (a date: its midnight UTC) on the first run: custom events from it, contacts and email events older left out; the bookmark keeps the window start', async () => {
    const startDate = '2025-01-02T00:00:00.000Z';
    const config = tapConfig(fx, { start_date: '2025-01-02' }); // a date: its midnight, UTC
    const r = await tap(['--config', config]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const at = Date.parse(startDate);
    for (const [stream, key] of [
      ['contacts', 'updatedAt'],
      ['custom_events', 'occurredAt'],
      ['email_events', 'occurredAt'],
    ]) {
      const rows = records(msgs, stream);
      expect(rows.length, stream).toBeGreaterThan(0);
      expect(
        rows.every((row) => Date.parse(row[key]) >= at),
        stream,
      ).toBe(true);
    }
    const all = messages((await tap(['--config', tapConfig(fx)])).stdout);
    expect(records(all, 'contacts').length).toBeGreaterThan(records(msgs, 'contacts').length);
    // The run says so, where a Meltano user reads its log: how many rows start_date left out.
    const left = records(all, 'contacts').length - records(msgs, 'contacts').length;
    expect(r.stderr).toMatch(
      new RegExp(
        `^contacts: \\d+ records, .*; ${left} rows older than start_date \\(or the state's replication_key_value\\) not emitted$`,
        'm',
      ),
    );
    expect(lastState(msgs)!.bookmarks.custom_events.since).toBe(startDate);
  });
});

describe('the FULL_TABLE streams', () => {
  it('fields: every field definition of every object type (key key); campaigns: the custom campaigns (key id); each run whole, then ACTIVATE_VERSION', async () => {
    const config = tapConfig(fx);
    const catalog = await catalogSelecting(config, FULL_TABLE);
    await fx.resetStats();
    const r = await tap(['--config', config, '--catalog', catalog]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const listed = async (path: string, member: string) => {
      const items: Message[] = [];
      let cursor: string | null = null;
      do {
        const res = await fetch(`${fx.emulator.url}${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: { 'x-api-key': fx.emulator.keys.full },
        });
        const body = await res.json();
        items.push(...body.data[member]);
        cursor = body.pagination?.nextCursor ?? null;
      } while (cursor);
      return items;
    };
    const fields = records(msgs, 'fields');
    expect(fields).toEqual(await listed('/v2/fields', 'fields'));
    expect([...new Set(fields.map((f) => f.objectType))]).toEqual(
      expect.arrayContaining(['CONTACT', 'COMPANY', 'OPPORTUNITY', 'CAMPAIGN_MEMBER']),
    );
    expect(records(msgs, 'campaigns')).toEqual(await listed('/v2/campaigns', 'campaigns'));
    for (const stream of FULL_TABLE) {
      const schema = msgs.find((m) => m.type === 'SCHEMA' && m.stream === stream)!;
      expect(schema.key_properties).toEqual([stream === 'fields' ? 'key' : 'id']);
      const activate = msgs.findIndex((m) => m.type === 'ACTIVATE_VERSION' && m.stream === stream);
      expect(activate).toBeGreaterThan(msgs.findLastIndex((m) => m.type === 'RECORD' && m.stream === stream));
      expect(
        msgs
          .filter((m) => m.type === 'RECORD' && m.stream === stream)
          .every((m) => m.version === msgs[activate].version),
      ).toBe(true);
    }
    expect(Object.keys(lastState(msgs)!.bookmarks)).toEqual([]);
    expect(Object.keys((await fx.stats()).byRoute).sort()).toEqual(['GET /v2/campaigns', 'GET /v2/fields']);
  });
});

describe('deletions', () => {
  it('a full pass (no state, as --full-refresh) ends with ACTIVATE_VERSION: a target with hard_delete drops a deleted contact; an incremental run does not', async () => {
    const config = tapConfig(fx);
    const first = messages((await tap(['--config', config])).stdout);
    const v1 = first.find((m) => m.type === 'ACTIVATE_VERSION').version;
    const gone = records(first, 'contacts').find((c) => c.email === 'grace@example.com');
    expect((await fx.admin('POST', `/_emulator/contacts/${gone.id}/delete`)).deleted).toBe(true);
    const incremental = messages(
      (await tap(['--config', config, '--state', jsonFile('state.json', lastState(first))])).stdout,
    );
    const ofContacts = (msgs: Message[]) => msgs.filter((m) => m.stream === 'contacts');
    expect(ofContacts(incremental).filter((m) => m.type === 'ACTIVATE_VERSION' || m.type === 'RECORD')).toEqual([]);
    const full = messages((await tap(['--config', config])).stdout);
    const activate = ofContacts(full).filter((m) => m.type === 'ACTIVATE_VERSION');
    expect(activate).toHaveLength(1);
    expect(activate[0].version).toBeGreaterThan(v1);
    const again = records(full, 'contacts');
    expect(again.some((c) => c.id === gone.id)).toBe(false);
    // As the target applies it: rows of an older version than the one activated are deleted.
    const table = new Map<string, number>(
      first.filter((m) => m.type === 'RECORD' && m.stream === 'contacts').map((m) => [m.record.id, m.version]),
    );
    for (const m of full) if (m.type === 'RECORD' && m.stream === 'contacts') table.set(m.record.id, m.version);
    for (const [id, version] of table) if (version < activate[0].version) table.delete(id);
    expect(table.has(gone.id)).toBe(false);
    expect(table.size).toBe((await fx.admin('GET', '/_emulator/exports/info')).contacts);
  });
});

describe('refusals and the key', () => {
  it('a state of another account is refused, exit 2, nothing sent', async () => {
    const first = await tap(['--config', tapConfig(fx)]);
    const state = jsonFile('state.json', lastState(messages(first.stdout)));
    await fx.resetStats();
    const other = await tap(['--config', tapConfig(fx, {}, fx.emulator.keys.limited), '--state', state]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(
      /error: state_account_mismatch: --state .*state\.json: bookmarks\.contacts belongs to account sk_live_demo@127\.0\.0\.1:\d+, not to this config's account sk_live_limited@/,
    );
    expect(other.stdout).toBe('');
    expect((await fx.stats()).total).toBe(0);
  });

  it('bad input: no --config, a config without a key, bad JSON with its line: exit 2 naming the flag and file', async () => {
    const none = await tap([]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('--config: required');
    const noKey = await tap(['--config', jsonFile('c.json', { base_url: fx.emulator.url })]);
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toMatch(/--config .*c\.json: needs api_key and base_url/);
    const bad = await tap([
      '--config',
      tapConfig(fx),
      '--state',
      jsonFile('s.json', '{\n  "bookmarks": {\n    oops\n}'),
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--state .*s\.json:3: not valid JSON/);
    const env = await tap(['--config', jsonFile('c2.json', { base_url: fx.emulator.url })], {
      CNV_API_KEY: fx.emulator.keys.full,
    });
    expect(env.exitCode, 'CNV_API_KEY is not read').toBe(2);
  });

  it('the key appears in no output: stdout, stderr (--debug), catalog, state', async () => {
    const config = tapConfig(fx, { page_size: 500 });
    const dir = tempConfigDir();
    const catalogRun = await tap(['--config', config, '--discover']);
    const sync = await tap(['--config', config, '--debug']);
    expect(sync.exitCode, sync.stderr).toBe(0);
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, JSON.stringify(lastState(messages(sync.stdout))));
    const resumed = await tap(['--config', config, '--state', statePath, '--verbose']);
    const key = fx.emulator.keys.full;
    const secret = key.split('_').at(-1)!;
    for (const text of [
      catalogRun.stdout,
      catalogRun.stderr,
      sync.stdout,
      sync.stderr,
      resumed.stdout,
      resumed.stderr,
      readFileSync(statePath, 'utf8'),
    ]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(secret);
    }
    expect(sync.stderr).toContain('/v2/exports/contacts');
  });
});
