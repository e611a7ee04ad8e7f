import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { lastState, messages, records, tap, tapConfig, type Message } from '../helpers/tap.js';

// stream_maps, stream_map_config and flattening in the tap's config, as the Meltano SDK reads
// them (docs/singer.md, "Stream maps", "Flattening"), through the executable against the
// emulator: each common form does what the SDK does, anything else is refused by name.
const fx = useEmulator({ rateLimit: 0 });

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const schemaOf = (msgs: Message[], stream: string) =>
  msgs.filter((m) => m.type === 'SCHEMA' && m.stream === stream).at(-1);

describe('stream maps', () => {
  it('drop (null, __NULL__), hash (md5, sha256 with a seed), copy, __alias__, __source__, __else__, __key_properties__', async () => {
    const reference = messages((await tap(['--config', tapConfig(fx)])).stdout);
    const config = tapConfig(fx, {
      stream_maps: {
        contacts: {
          email: 'md5(email)',
          email_sha: "sha256(config['seed'] + email)",
          city: null,
          vip: '__NULL__',
          town: "record['city']",
          tenant: '"acme-eu"',
        },
        contacts_pii: { __source__: 'contacts', email: 'email', __else__: null },
        custom_events: { __alias__: 'events' },
        email_events: null,
        fields: { __key_properties__: ['key', 'objectType'] },
      },
      stream_map_config: { seed: 's33d' },
    });
    const r = await tap(['--config', config]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const byId = new Map(records(reference, 'contacts').map((c) => [c.id, c]));
    const mapped = records(msgs, 'contacts');
    expect(mapped.length).toBe(byId.size);
    for (const c of mapped) {
      const plain = byId.get(c.id)!;
      expect(c.email).toBe(plain.email === null ? null : md5(plain.email));
      expect(c.email_sha).toBe(plain.email === null ? null : sha256(`s33d${plain.email}`));
      expect(c.town).toBe(plain.city ?? null);
      expect(c.tenant).toBe('acme-eu');
      expect('city' in c || 'vip' in c).toBe(false);
    }
    const schema = schemaOf(msgs, 'contacts')!;
    expect(schema.schema.properties.city).toBeUndefined();
    expect(schema.schema.properties.town).toEqual({ type: ['string', 'null'], title: 'City' });
    expect(schema.schema.properties.email_sha).toEqual({ type: ['string', 'null'] });
    // __source__: a copy holding the key and what it names; __else__: nothing else.
    const pii = records(msgs, 'contacts_pii');
    expect(pii.length).toBe(byId.size);
    expect(pii.every((c) => Object.keys(c).sort().join() === 'email,id' && c.email === byId.get(c.id)!.email)).toBe(
      true,
    );
    expect(schemaOf(msgs, 'contacts_pii')!.key_properties).toEqual(['id']);
    // __alias__: the stream under its new name; its bookmark keeps the tap's name.
    expect(records(msgs, 'events').length).toBe(records(reference, 'custom_events').length);
    expect(msgs.some((m) => m.stream === 'custom_events' || m.stream === 'email_events')).toBe(false);
    expect(Object.keys(lastState(msgs)!.bookmarks).sort()).toEqual(['contacts', 'custom_events']);
    expect(schemaOf(msgs, 'fields')!.key_properties).toEqual(['key', 'objectType']);
  });

  it('a removed stream is not requested; a glob (*) maps every stream', async () => {
    await fx.resetStats();
    const r = await tap([
      '--config',
      tapConfig(fx, {
        stream_maps: { '*': { __alias__: "__stream_name__ + '_v2'" }, __else__: null, email_events: null },
      }),
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const streams = new Set(
      messages(r.stdout)
        .filter((m) => m.type === 'SCHEMA')
        .map((m) => m.stream),
    );
    expect([...streams]).toEqual(['contacts_v2', 'custom_events_v2', 'fields_v2', 'campaigns_v2']);
    expect(Object.keys((await fx.stats()).byRoute)).not.toContain('POST /v2/exports/email-events');
  });

  it('flattening: data and type become their members down to the depth (a SCHEMA before the first record with a new one); arrays as JSON text', async () => {
    const r = await tap(['--config', tapConfig(fx, { flattening_enabled: true, flattening_max_depth: 1 })]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const events = records(msgs, 'custom_events');
    const withData = events.find((e) => Object.keys(e).some((k) => k.startsWith('data__')))!;
    expect(withData).toBeDefined();
    expect(events.every((e) => typeof e.data !== 'object' || e.data === null)).toBe(true);
    // Every property of every record was in a SCHEMA of its stream written before it.
    const known = new Map<string, Set<string>>();
    for (const m of msgs) {
      if (m.type === 'SCHEMA') known.set(m.stream, new Set(Object.keys(m.schema.properties)));
      if (m.type === 'RECORD')
        for (const k of Object.keys(m.record)) expect(known.get(m.stream)!.has(k), `${m.stream}.${k}`).toBe(true);
    }
    const campaign = records(msgs, 'campaigns')[0];
    expect(campaign.type__systemType).toBe('CUSTOM');
    expect(schemaOf(msgs, 'campaigns')!.schema.properties.type__systemType).toEqual({ type: ['string', 'null'] });
    const topics = records(msgs, 'email_events').find((e) => e.topicIds !== null && e.topicIds !== undefined);
    if (topics) expect(typeof topics.topicIds).toBe('string');
  });

  it('refused by name (exit 2, nothing sent): __filter__, a Python expression, faker_config, flattening without a depth, a dropped key', async () => {
    await fx.resetStats();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ stream_maps: { contacts: { __filter__: "email.endswith('@x.io')" } } }, /stream_maps\.contacts\.__filter__/],
      [
        { stream_maps: { contacts: { domain: "email.split('@')[-1]" } } },
        /stream_maps\.contacts\.domain: .*not supported/,
      ],
      [{ stream_maps: { contacts: { x: "md5(config['nope'])" } } }, /config\['nope'\].*stream_map_config/],
      [{ stream_maps: { contacts: { id: null } } }, /stream_maps\.contacts\.id: id is a key property/],
      [{ faker_config: { seed: 0 } }, /faker_config: fake values/],
      [{ flattening_enabled: true }, /flattening_enabled: needs flattening_max_depth/],
      [{ stream_maps: { contacts: { x: 'md5(emial)' } } }, /"emial", which stream contacts does not have/],
    ];
    for (const [settings, message] of cases) {
      const r = await tap(['--config', tapConfig(fx, settings)]);
      expect(r.exitCode, JSON.stringify(settings)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout.includes('"RECORD"'), JSON.stringify(settings)).toBe(false);
    }
    // Only the one that needs the contacts schema to be judged sent its request (the field definitions).
    expect(Object.keys((await fx.stats()).byRoute)).toEqual(['GET /v2/fields']);
  });

  it('unknown settings draw a warning naming each; --about lists the map and flattening settings and capabilities', async () => {
    const r = await tap(['--config', tapConfig(fx, { page_sise: 10, flatten: true }), '--test']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: --config .*: unknown settings page_sise, flatten: ignored/);
    const about = JSON.parse((await tap(['--about'])).stdout);
    expect(about.capabilities).toEqual(expect.arrayContaining(['stream-maps', 'flattening']));
    expect(Object.keys(about.settings.properties)).toEqual(
      expect.arrayContaining(['stream_maps', 'stream_map_config', 'flattening_enabled', 'flattening_max_depth']),
    );
  });
});
