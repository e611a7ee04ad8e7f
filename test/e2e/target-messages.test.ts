import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES, FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { runPipeline } from '../helpers/singer-pipeline.js';
import { TARGET_BIN } from '../helpers/target-accounts.js';

// target-cnv fed fixture message files (test/fixtures/target/), as a tap would pipe them: an
// audience mirrored through end-style and start-style ACTIVATE_VERSION, an older version, a tap
// that exits 1 half way, a record marked deleted; bad rows with their codes while the rest
// lands; numbers beyond doubles; stdout holding exactly the tap's states; plan; SIGTERM.
const fx = useEmulator({ rateLimit: 0 }, { stats: true });
const FIXTURES = join(import.meta.dirname, '../fixtures/target');
const AUDIENCE = FIXTURE_AUDIENCES.followUp.id;
const VIPS = FIXTURE_AUDIENCES.vip.id;
const { ada, grace, linus, unsubscribed } = FIXTURE_CONTACTS;

/** A fixture file, `{{V}}` its table version, `{{START}}`/`{{END}}` an ACTIVATE_VERSION there (or nothing). */
function fixture(name: string, v = 0, activate: 'start' | 'end' | 'none' = 'none'): string {
  const line = `{"type":"ACTIVATE_VERSION","stream":"members","version":${v}}`;
  return readFileSync(join(FIXTURES, name), 'utf8')
    .replaceAll('{{V}}', String(v))
    .replace('{{START}}\n', activate === 'start' ? `${line}\n` : '')
    .replace('{{END}}\n', activate === 'end' ? `${line}\n` : '');
}

/** The tap's states in a message file: the value of each STATE, as written. */
function statesOf(messages: string): string[] {
  return messages
    .split('\n')
    .filter((l) => l.includes('"type":"STATE"'))
    .map((l) =>
      l
        .slice(l.indexOf('"value":') + 8)
        .replace(/\s*}\s*$/, '')
        .trim(),
    )
    .map((v) => v.replace(/^ /, ''));
}

/** A target's config directory and report, kept across its runs. */
function pipeline(streams: Record<string, unknown>, more: Record<string, unknown> = {}) {
  const dir = tempConfigDir();
  const report = join(dir, 'report.ndjson');
  const config = join(dir, 'config.json');
  const doc = { base_url: fx.emulator.url, api_key: fx.emulator.keys.full, report_path: report, streams, ...more };
  writeFileSync(config, JSON.stringify(doc));
  return { dir, report, config, env: cleanEnv({ CNV_CONFIG_DIR: join(dir, 'cnv') }) };
}
type Pipeline = ReturnType<typeof pipeline>;

/** target-cnv with `messages` on stdin. */
function target(p: Pipeline, messages: string) {
  return execa(process.execPath, [TARGET_BIN, '--config', p.config], {
    input: messages,
    env: p.env,
    extendEnv: false,
    reject: false,
  });
}

/** The report's lines. */
const reportOf = (p: Pipeline) =>
  readFileSync(p.report, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The audience's members, by email. */
function members(id: string): string[] {
  const business = fx.emulator.store.business('acme');
  return [...business.audiences.get(id)!.memberIds].map((c) => business.contacts.get(c)?.email ?? c).sort();
}

describe('an audience mirrored from a versioned stream', () => {
  beforeEach(async () => {
    await fx.admin('POST', '/_emulator/reset');
  });

  it('end-style ACTIVATE_VERSION: a member the pass left out is removed; an older version, and a tap that exits 1 half way, remove nothing', async () => {
    const p = pipeline({ members: { kind: 'audience', audience_id: AUDIENCE } });
    const first = await target(p, fixture('members-all.ndjson', 100, 'end'));
    expect(first.exitCode, first.stderr).toBe(0);
    expect(members(AUDIENCE)).toEqual([ada, grace, linus, unsubscribed].map((c) => c.email).sort());
    const second = await target(p, fixture('members-three.ndjson', 200, 'end'));
    expect(second.exitCode, second.stderr).toBe(0);
    expect(members(AUDIENCE)).toEqual([ada, grace, linus].map((c) => c.email).sort());
    expect(reportOf(p)).toContainEqual(expect.objectContaining({ status: 'removed', id: unsubscribed.id }));
    // An older version's ACTIVATE_VERSION: ignored, with a warning.
    const olderWithSchema = await target(
      p,
      fixture('members-three.ndjson', 150, 'end').split('\n')[0] +
        '\n{"type":"ACTIVATE_VERSION","stream":"members","version":150}\n',
    );
    expect(olderWithSchema.exitCode, olderWithSchema.stderr).toBe(0);
    expect(olderWithSchema.stderr).toContain('ACTIVATE_VERSION 150 is older than the pass under way (200): ignored');
    // A tap that dies half way through pass 300 (its stdin closed by the runner): no removal.
    const script = join(tempConfigDir(), 'tap.mjs');
    writeFileSync(
      script,
      `process.stdout.write(${JSON.stringify(fixture('members-half.ndjson'))}, () => process.exit(1));\n`,
    );
    const half = await runPipeline({
      tap: { argv: [process.execPath, script] },
      target: { argv: [process.execPath, TARGET_BIN, '--config', p.config], env: p.env },
      stateFile: join(p.dir, 'state.json'),
      catalog: { streams: [] },
    });
    expect(half.tap.exitCode).toBe(1);
    expect(half.target.exitCode, half.target.stderr).toBe(0);
    expect(members(AUDIENCE)).toEqual([ada, grace, linus].map((c) => c.email).sort());
  });

  it('start-style ACTIVATE_VERSION: a member is removed once two full passes left it out, when the third starts', async () => {
    const p = pipeline({ members: { kind: 'audience', audience_id: AUDIENCE } });
    const all = [ada, grace, linus, unsubscribed].map((c) => c.email).sort();
    for (const [file, v] of [
      ['members-all.ndjson', 100],
      ['members-three.ndjson', 200],
      ['members-three.ndjson', 300],
    ] as const) {
      const r = await target(p, fixture(file, v, 'start'));
      expect(r.exitCode, r.stderr).toBe(0);
      expect(members(AUDIENCE)).toEqual(all);
    }
    const fourth = await target(p, fixture('members-three.ndjson', 400, 'start'));
    expect(fourth.exitCode, fourth.stderr).toBe(0);
    expect(members(AUDIENCE)).toEqual([ada, grace, linus].map((c) => c.email).sort());
  });

  it('a record marked deleted (_sdc_deleted_at) removes its member; a member the stream did not add is never removed', async () => {
    const p = pipeline({ members: { kind: 'audience', audience_id: VIPS } });
    // vip holds ada already (added by hand): the stream adds grace and linus, then deletes grace and leaves ada out.
    const before = members(VIPS);
    expect(before).toEqual([ada.email]);
    const added = await target(p, fixture('members-three.ndjson', 100, 'end').replace(/.*"id":1,.*\n/, ''));
    expect(added.exitCode, added.stderr).toBe(0);
    expect(members(VIPS)).toEqual([ada, grace, linus].map((c) => c.email).sort());
    const deleted = await target(p, fixture('members-deleted.ndjson'));
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(members(VIPS)).toEqual([ada, linus].map((c) => c.email).sort());
  });
});

describe('bad rows, big numbers, states', () => {
  it("bad rows are reported with their codes while the rest lands; numbers beyond doubles are exact; stdout is the tap's states, byte for byte; a failed row is kept for the next run", async () => {
    const p = pipeline({ crm: { kind: 'contacts' }, vips: { kind: 'audience', audience_id: VIPS } });
    const messages = readFileSync(join(FIXTURES, 'bad-rows.ndjson'), 'utf8');
    const r = await target(p, messages);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(statesOf(messages));
    const rows = reportOf(p).filter((l) => l.type === 'row');
    const byKey = Object.fromEntries(rows.map((l) => [`${l.stream}:${l.key}`, l]));
    expect(byKey['crm:c1']).toMatchObject({ status: 'created' });
    expect(byKey['crm:c2']).toMatchObject({ status: 'invalid', error: 'invalid_email' });
    expect(byKey['crm:c3']).toMatchObject({ status: 'invalid', error: 'unknown_column' });
    expect(byKey['crm:c4']).toMatchObject({ status: 'created' });
    expect(byKey['vips:nobody.yet@example.com']).toMatchObject({ status: 'failed', error: 'contact_not_found' });
    expect(byKey['vips:grace@example.com']).toMatchObject({ status: 'added' });
    const stored = await (await fetch(`${fx.emulator.url}/_emulator/state/contacts?email=crm.four@example.com`)).text();
    expect(stored).toContain('"score":12345678901234567890.5');
    // The failed row is sent again first by the next run; once the contact exists, it lands.
    const again = await target(p, readFileSync(join(FIXTURES, 'vips-again.ndjson'), 'utf8'));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(reportOf(p)).toContainEqual(
      expect.objectContaining({ key: 'nobody.yet@example.com', status: 'failed', line: 0 }),
    );
    const made = await fetch(`${fx.emulator.url}/v2/contacts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': fx.emulator.keys.full },
      body: JSON.stringify({ email: 'nobody.yet@example.com' }),
    });
    expect(made.status).toBe(200);
    const landed = await target(p, readFileSync(join(FIXTURES, 'vips-again.ndjson'), 'utf8'));
    expect(landed.exitCode, landed.stderr).toBe(0);
    expect(reportOf(p)).toContainEqual(
      expect.objectContaining({ key: 'nobody.yet@example.com', status: 'added', line: 0 }),
    );
    expect(members(VIPS)).toContain('nobody.yet@example.com');
  });
});

describe('kinds, settings and signals', () => {
  const schema = (stream: string, properties: string[], key: string[]) =>
    JSON.stringify({
      type: 'SCHEMA',
      stream,
      schema: { type: 'object', properties: Object.fromEntries(properties.map((p) => [p, {}])) },
      key_properties: key,
    }) + '\n';
  const record = (stream: string, rec: Record<string, unknown>) =>
    JSON.stringify({ type: 'RECORD', stream, record: rec }) + '\n';
  const state = (n: number) => `{"type":"STATE","value":{"n":${n}}}\n`;
  const writes = async () =>
    Object.entries(((await fx.stats()) as { byRoute: Record<string, number> }).byRoute)
      .filter(([route]) => !route.startsWith('GET') && !route.includes('/exports/'))
      .reduce((n, [, c]) => n + c, 0);

  it('a property naming nothing, or a stream nothing feeds, stops the run at its SCHEMA (exit 2, named), nothing sent', async () => {
    const p = pipeline({ crm: { kind: 'contacts' } });
    const unknown = await target(
      p,
      schema('crm', ['id', 'email', 'favouriteColour'], ['id']) + record('crm', { id: 1, email: 'x@example.com' }),
    );
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(
      /error: unknown_column: the SCHEMA of stream "crm": a property that names nothing POST \/v2\/contacts takes: "favouriteColour"/,
    );
    expect(unknown.stderr).toContain("hint: map it in the stream's config (streams.crm.map");
    const unfed = await target(p, schema('orders', ['id'], ['id']));
    expect(unfed.exitCode).toBe(2);
    expect(unfed.stderr).toContain('stream "orders" is not in the config\'s streams');
    expect(await writes()).toBe(0);
    expect(unknown.stdout + unfed.stdout).toBe('');
  });

  it('plan: true sends nothing and prints no state; the report holds the changes old -> new; exit 9', async () => {
    const p = pipeline(
      { crm: { kind: 'contacts', map: { first: 'firstName' } }, vips: { kind: 'audience', audience_id: VIPS } },
      { plan: true },
    );
    const messages =
      schema('crm', ['id', 'email', 'first'], ['id']) +
      record('crm', { id: 1, email: ada.email, first: 'Augusta' }) +
      record('crm', { id: 2, email: 'brand.new@example.com', first: 'New' }) +
      state(1) +
      schema('vips', ['email'], ['email']) +
      record('vips', { email: grace.email }) +
      state(2);
    const r = await target(p, messages);
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stdout).toBe('');
    expect(await writes()).toBe(0);
    const changes = reportOf(p).filter((l) => l.type === 'change');
    expect(changes).toContainEqual(
      expect.objectContaining({
        stream: 'crm',
        action: 'update',
        changes: [{ field: 'fields.firstName', old: 'Ada', new: 'Augusta' }],
      }),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ stream: 'crm', action: 'create', contact: 'brand.new@example.com' }),
    );
    expect(changes).toContainEqual(expect.objectContaining({ stream: 'vips', action: 'add', key: grace.email }));
  });

  it('records by digest, events once by key, max_failed_rows: a rerun sends nothing; more failures than allowed is exit 6 after the states were printed', async () => {
    const p = pipeline(
      {
        subs: { kind: 'records', custom_object_id: 'c0000000-0000-4000-8000-000000000001' },
        orders: { kind: 'events', event: 'order_placed', map: { buyer: 'email' } },
      },
      { max_failed_rows: 0 },
    );
    const messages =
      schema('subs', ['sub_id', 'planName', 'seats'], ['sub_id']) +
      record('subs', { sub_id: 'sub-1', planName: 'Pro', seats: 5 }) +
      record('subs', { sub_id: 'sub-2', planName: 'Team', seats: 12 }) +
      state(1) +
      schema('orders', ['order_id', 'buyer', 'data'], ['order_id']) +
      record('orders', { order_id: 'o-1', buyer: ada.email, data: { total: 10 } }) +
      record('orders', { order_id: 'o-2', buyer: 'not-an-email', data: { total: 20 } }) +
      state(2);
    await fx.resetStats();
    const first = await target(p, messages);
    expect(first.exitCode, first.stderr).toBe(6);
    expect(first.stderr).toContain('1 rows failed or were invalid, more than max_failed_rows 0: exit 6');
    expect(first.stdout).toBe('{"n":1}\n{"n":2}');
    const records = await (
      await fetch(`${fx.emulator.url}/_emulator/state/records?customObjectId=c0000000-0000-4000-8000-000000000001`)
    ).text();
    expect(records).toContain('sub-2');
    await fx.resetStats();
    const again = await target(p, messages);
    expect(again.exitCode).toBe(6);
    expect(await writes()).toBe(0);
  });

  it('mass removals are held (exit 6): max_removals', async () => {
    await fx.admin('POST', '/_emulator/reset');
    const p = pipeline({ members: { kind: 'audience', audience_id: AUDIENCE, max_removals: 0 } });
    expect((await target(p, fixture('members-all.ndjson', 100, 'end'))).exitCode).toBe(0);
    const r = await target(p, fixture('members-three.ndjson', 200, 'end'));
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('stream members: held: 1 removals, more than max_removals: 0');
    expect(members(AUDIENCE)).toContain(unsubscribed.email);
  });

  it('SIGTERM: stops reading, lets the requests in flight finish, prints the last state they cover, exit 143', async () => {
    const p = pipeline({ orders: { kind: 'events', event: 'order_placed' } });
    try {
      const child = execa(process.execPath, [TARGET_BIN, '--config', p.config], {
        env: p.env,
        extendEnv: false,
        reject: false,
      });
      const order = (i: number) => record('orders', { order_id: `t-${i}`, email: ada.email });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stdin!.write(schema('orders', ['order_id', 'email'], ['order_id']) + order(1) + order(2) + state(1));
      const started = Date.now();
      const until = async (done: () => Promise<boolean> | boolean) => {
        while (!(await done()) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
      };
      await until(() => out.includes('{"n":1}'));
      // Answers take 3 s from here on: no request can finish (and free a slot for another) before the signal.
      await fx.faults({ latencyMs: 3_000 });
      await fx.resetStats();
      child.stdin!.write(Array.from({ length: 40 }, (_, i) => order(100 + i)).join('') + state(2));
      // Its 16 requests in flight (the target's concurrency): none can start until one is answered.
      await until(async () => (await eventStats()).started >= 16);
      const atSignal = await eventStats();
      child.kill('SIGTERM');
      const end = await child;
      expect(end.exitCode, end.stderr).toBe(143);
      expect(out).toBe('{"n":1}\n');
      expect(atSignal.finished).toBe(0);
      expect(atSignal.started).toBeGreaterThan(0);
      expect(atSignal.started).toBeLessThanOrEqual(16);
      // Every request in flight at the signal was answered before the exit; none was sent after it.
      expect(await eventStats()).toEqual({ started: atSignal.started, finished: atSignal.started });
    } finally {
      await fx.clearFaults();
    }
  });

  const eventStats = async () => {
    const stats = (await fx.stats()) as { byRoute: Record<string, number>; startedByRoute: Record<string, number> };
    return { started: stats.startedByRoute['POST /v2/events'] ?? 0, finished: stats.byRoute['POST /v2/events'] ?? 0 };
  };
});
