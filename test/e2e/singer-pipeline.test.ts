import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { accountRows, START, STREAMS } from '../../scripts/interop/account.mjs';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { byKey, diffRows } from '../../scripts/interop/compare.mjs';
import { cleanEnv, cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import {
  runPipeline,
  type Catalog,
  type PipelineOptions,
  type PipelineResult,
  type SingerCommand,
} from '../helpers/singer-pipeline.js';
import { groupAlive, startPipelineProcess } from '../helpers/singer-pipeline-process.js';
import { storedRows, storedStreams, TARGET_SCRIPT, targetCounts } from '../helpers/singer-store.js';
import { TAP_BIN } from '../helpers/tap.js';

// What `npm run interop` proves with the real Meltano, held without Python: tap-cnv (the built
// bin) into a test target that upserts by key and hard-deletes on ACTIVATE_VERSION, through a
// runner that keeps the state as `meltano run` does (test/helpers/singer-pipeline.ts). "Equals
// the account" is interop's comparison (scripts/interop/compare.mjs) against cnv's own export.
const fx = useEmulator({ rateLimit: 0 });

/** Every text a run printed or stored (the key is looked for in each at the end). */
const outputs: { where: string; text: string }[] = [];
/** The folders of the pipelines' states and stores. */
const dirs: string[] = [];

/** A pipeline of its own: its state file and the target's store. */
function pipelineDirs() {
  const dir = tempConfigDir();
  dirs.push(dir);
  return { stateFile: join(dir, 'state.json'), destination: join(dir, 'store') };
}
type Pipeline = ReturnType<typeof pipelineDirs>;

const tapCommand = (settings: Record<string, unknown> = {}): SingerCommand => ({
  argv: [process.execPath, TAP_BIN],
  env: cleanEnv({ CNV_CONFIG_DIR: tempConfigDir() }),
  config: { base_url: fx.emulator.url, api_key: fx.emulator.keys.full, start_date: START, ...settings },
});
const targetCommand = (p: Pipeline): SingerCommand => ({
  argv: [process.execPath, TARGET_SCRIPT],
  config: { destination: p.destination },
});

function keep(label: string, r: PipelineResult): void {
  outputs.push(
    { where: `${label}: tap stderr`, text: r.tap.stderr },
    { where: `${label}: target stderr`, text: r.target.stderr },
    { where: `${label}: state`, text: r.state ?? '' },
  );
}

/** The tap's catalog, as the first run discovered it (later runs reuse it, as Meltano caches it). */
let discovered: Catalog | undefined;

/**
 * tap-cnv into the test target once; both must end with 0. The streams cnv's export compares
 * with are selected, as interop's meltano.yml selects them (the FULL_TABLE lists are the tap's tests').
 */
async function run(
  p: Pipeline,
  label: string,
  opts: Partial<PipelineOptions> & { settings?: Record<string, unknown> } = {},
) {
  const { settings, ...more } = opts;
  const r = await runPipeline({
    tap: tapCommand(settings),
    target: targetCommand(p),
    stateFile: p.stateFile,
    catalog: discovered,
    select: Object.keys(STREAMS).map((stream) => `${stream}.*`),
    ...more,
  });
  discovered ??= r.catalog;
  keep(label, r);
  expect(r.tap.exitCode, r.tap.stderr).toBe(0);
  expect(r.target.exitCode, r.target.stderr).toBe(0);
  return { ...r, counts: targetCounts(r.target.stderr)! };
}

/** cnv's own export of the account, as interop reads it. */
const exportCnv = async (args: string[]) => {
  const r = await cnv([...args, '--quiet'], { env: fx.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

/** cnv's export of the account, per stream, read once after each change (`accountChanged()` forgets them). */
const exported = new Map<string, Promise<Map<string, Record<string, unknown>>>>();
const accountChanged = () => exported.clear();
function accountNow(stream: string): Promise<Map<string, Record<string, unknown>>> {
  if (!exported.has(stream)) exported.set(stream, accountRows(exportCnv, stream));
  return exported.get(stream)!;
}

/** The differences between what the target holds for `streams` and the account (none: equal). */
async function differences(p: Pipeline, streams = Object.keys(STREAMS)): Promise<string[]> {
  const each = await Promise.all(
    streams.map(async (stream) => {
      const actual = byKey(
        storedRows(p.destination, stream).map((r) => r.record),
        STREAMS[stream].key,
      );
      return diffRows(await accountNow(stream), actual).map((d: string) => `${stream}: ${d}`);
    }),
  );
  return each.flat();
}

/** A write to the API with the full key (quicker than a cnv process); `body` as written (a number keeps its digits). */
async function api(path: string, body: string): Promise<void> {
  const res = await fetch(fx.emulator.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': fx.emulator.keys.full },
    body,
  });
  expect(res.status, await res.text()).toBe(200);
}

const accountSize = async () => {
  const info = await fx.admin('GET', '/_emulator/exports/info');
  return { contacts: info.contacts, custom_events: info.customEvents, email_events: info.emailEvents };
};

describe('the runner and the test target, with a scripted tap', () => {
  /** A tap that says on stderr what it was given, then prints `messages`, `"{{n}}"` in them the `n` of its --state plus 1. */
  function scriptedTap(messages: object[]): SingerCommand {
    const file = join(tempConfigDir(), 'tap.mjs');
    const script = `
      import { readFileSync } from 'node:fs';
      const arg = (name) => { const i = process.argv.indexOf(name); return i < 0 ? undefined : readFileSync(process.argv[i + 1], 'utf8'); };
      if (process.argv.includes('--discover')) {
        console.log(JSON.stringify({ streams: ['users', 'orders'].map((s) => ({ tap_stream_id: s, stream: s,
          schema: { properties: { id: {}, name: {}, email: {} } },
          metadata: [{ breadcrumb: [], metadata: { 'selected-by-default': true } }] })) }));
        process.exit(0);
      }
      const state = arg('--state');
      const catalog = JSON.parse(arg('--catalog'));
      const selected = catalog.streams.flatMap((s) => s.metadata.filter((m) => m.metadata.selected)
        .map((m) => [s.tap_stream_id, ...m.breadcrumb.slice(1)].join('.')));
      console.error(JSON.stringify({ config: JSON.parse(arg('--config')), state: state && JSON.parse(state), selected }));
      const n = state ? JSON.parse(state).n : 0;
      for (const m of ${JSON.stringify(messages)}) console.log(JSON.stringify(m).replaceAll('"{{n}}"', String(n + 1)));
    `;
    writeFileSync(file, script);
    return { argv: [process.execPath, file], config: { secret: 'x' } };
  }
  const told = (r: PipelineResult) => JSON.parse(r.tap.stderr.trim().split('\n').at(-1)!);
  const schema = { type: 'SCHEMA', stream: 'users', key_properties: ['id'], schema: {} };
  const record = (id: number, name: string, version?: number) => ({
    type: 'RECORD',
    stream: 'users',
    record: { id, name },
    ...(version === undefined ? {} : { version }),
  });

  it('--config, --catalog with the selection, the last saved state as --state (none on --full-refresh); each state line saved', async () => {
    const p = pipelineDirs();
    const tap = scriptedTap([schema, { type: 'STATE', value: { n: 0.5 } }, { type: 'STATE', value: { n: '{{n}}' } }]);
    const go = (more: Partial<PipelineOptions> = {}) =>
      runPipeline({ tap, target: targetCommand(p), stateFile: p.stateFile, ...more });
    const first = await go({ select: ['users.*', '!users.email'] });
    expect(told(first)).toEqual({
      config: { secret: 'x' },
      selected: ['users', 'users.id', 'users.name'],
    });
    expect(first.tapArgs).not.toContain('--state');
    expect([first.statesSaved, first.state]).toEqual([2, '{"n":1}\n']);
    const second = await go({ select: ['orders'] });
    expect(told(second)).toEqual({
      config: { secret: 'x' },
      state: { n: 1 },
      selected: ['orders', 'orders.id', 'orders.name', 'orders.email'],
    });
    expect(second.state).toBe('{"n":2}\n');
    const refresh = await go({ fullRefresh: true });
    expect(told(refresh).state).toBeUndefined();
    expect(refresh.tapArgs).not.toContain('--state');
    expect(refresh.state).toBe('{"n":1}\n');
  });

  it('the target upserts by key, removes the rows of older versions at ACTIVATE_VERSION, prints a STATE once the rows before it are stored', async () => {
    const p = pipelineDirs();
    const stored: number[] = [];
    const r = await runPipeline({
      tap: scriptedTap([
        schema,
        record(1, 'a', 10),
        record(2, 'b', 10),
        { type: 'STATE', value: { n: 1 } },
        record(1, 'a2', 11),
        record(3, 'c', 11),
        { type: 'activate_version', stream: 'users', version: 11 },
        { type: 'STATE', value: { n: 2 } },
      ]),
      target: targetCommand(p),
      stateFile: p.stateFile,
      onState: () => stored.push(storedRows(p.destination, 'users').length),
    });
    expect(r.target.exitCode, r.target.stderr).toBe(0);
    expect(stored).toEqual([2, 2]);
    expect(storedRows(p.destination, 'users').map((row) => [row.version, stringify(row.record)])).toEqual([
      [11, '{"id":1,"name":"a2"}'],
      [11, '{"id":3,"name":"c"}'],
    ]);
    expect(targetCounts(r.target.stderr)).toEqual({ records: { users: 4 }, activated: { users: 1 }, states: 2 });
  });

  it('a target line that is not JSON is not saved; a target that ends first stops the tap', async () => {
    const p = pipelineDirs();
    const r = await runPipeline({
      tap: { argv: [process.execPath, '-e', 'setInterval(() => console.log("{}"), 10)', '--'] },
      target: { argv: [process.execPath, '-e', 'console.log("not json"); console.log(\'{"a":1}\'); process.exit(3)'] },
      stateFile: p.stateFile,
      catalog: { streams: [] },
    });
    expect([r.target.exitCode, r.tapStopped, r.tap.signal]).toEqual([3, true, 'SIGKILL']);
    expect([r.statesSaved, r.invalidStateLines, r.state]).toEqual([1, ['not json'], '{"a":1}\n']);
  });
});

describe('tap-cnv into the test target, as meltano run runs it', () => {
  const main = pipelineDirs();

  it('a first run: the target equals the account (every stream, every value)', async () => {
    const r = await run(main, 'first run');
    expect(await differences(main)).toEqual([]);
    expect(r.counts.records).toEqual(await accountSize());
    expect(r.counts.activated).toEqual({ contacts: 1 });
  });

  it('after changes, an incremental run from the saved state loads only the changes (a 50-digit number exact)', async () => {
    const huge = '12345678901234567890123456789012345678901234567890';
    await api('/v2/contacts', '{"email":"ada@example.com","fields":{"city":"Pipeline"}}');
    await api('/v2/contacts', `{"email":"pipeline.huge@example.com","fields":{"score":${huge}}}`);
    await api('/v2/events', '{"event":"pipeline_test","email":"ada@example.com","clientEventId":"pipe-1"}');
    await fx.admin('POST', '/_emulator/email-events', { eventType: 'EMAIL_OPEN', email: 'grace@example.com' });
    accountChanged();
    const r = await run(main, 'incremental run');
    expect(r.tapArgs).toContain('--state');
    expect(r.counts.records).toEqual({ contacts: 2, custom_events: 1, email_events: 1 });
    expect(r.counts.activated).toEqual({});
    expect(await differences(main)).toEqual([]);
    const stored = storedRows(main.destination, 'contacts').find(
      (row) => row.record.email === 'pipeline.huge@example.com',
    );
    expect(String(stored!.record.score)).toBe(huge);
  });

  it('a full refresh (no --state) removes a contact deleted in the account; an incremental run does not', async () => {
    const victim = storedRows(main.destination, 'contacts').find((row) => row.record.email === 'grace@example.com')!;
    await fx.admin('POST', `/_emulator/contacts/${victim.record.id}/delete`, {});
    accountChanged();
    const incremental = await run(main, 'incremental run after a deletion');
    expect(incremental.counts.records).toEqual({});
    expect(storedRows(main.destination, 'contacts').some((row) => row.record.id === victim.record.id)).toBe(true);
    const refresh = await run(main, 'full refresh', { fullRefresh: true });
    expect(refresh.tapArgs).not.toContain('--state');
    expect(refresh.counts.activated).toEqual({ contacts: 1 });
    expect(storedRows(main.destination, 'contacts').some((row) => row.record.id === victim.record.id)).toBe(false);
    expect(await differences(main)).toEqual([]);
  });

  it('stream and property selection: only the streams selected are loaded, without the property deselected', async () => {
    const p = pipelineDirs();
    const r = await run(p, 'selection', { select: ['contacts.*', '!contacts.email', 'custom_events'] });
    expect(storedStreams(p.destination)).toEqual(['contacts', 'custom_events']);
    expect(Object.keys(r.counts.records).sort()).toEqual(['contacts', 'custom_events']);
    const contacts = storedRows(p.destination, 'contacts').map((row) => row.record);
    expect(contacts.filter((c) => 'email' in c)).toEqual([]);
    expect(contacts.every((c) => typeof c.id === 'string' && typeof c.updatedAt === 'string')).toBe(true);
    expect(await differences(p, ['custom_events'])).toEqual([]);
    // The contacts otherwise equal the account's.
    const withoutEmail = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'email'));
    const account = new Map([...(await accountNow('contacts'))].map(([id, row]) => [id, withoutEmail(row)]));
    expect(diffRows(account, byKey(contacts, 'id'))).toEqual([]);
  });

  it('kill -9 of the tap mid-run, then a rerun from the saved state: the target equals the account', async () => {
    const p = pipelineDirs();
    // 60 ms a page: the ~14 pages after the second STATE outlast the kill's random delay (at most 200 ms).
    await fx.faults({ latencyMs: 60 });
    const delay = Math.floor(Math.random() * 200);
    let tap: ChildProcess | undefined;
    const killed = await runPipeline({
      catalog: discovered,
      tap: tapCommand({ page_size: 500 }),
      target: targetCommand(p),
      stateFile: p.stateFile,
      onStart: (procs) => (tap = procs.tap),
      // Mid-run: after the second page's STATE was saved (of about 16), and a random moment.
      onState: (n) => void (n === 2 && setTimeout(() => tap?.kill('SIGKILL'), delay)),
    });
    keep('tap killed', killed);
    await fx.clearFaults();
    expect(killed.tap.signal).toBe('SIGKILL');
    expect(killed.target.exitCode, killed.target.stderr).toBe(0);
    expect(killed.statesSaved).toBeGreaterThanOrEqual(2);
    const rerun = await run(p, 'rerun after the tap was killed', { settings: { page_size: 500 } });
    expect(rerun.tapArgs).toContain('--state');
    expect(await differences(p)).toEqual([]);
    // It resumed: fewer records than the account holds.
    const size = await accountSize();
    expect(rerun.counts.records.contacts ?? 0).toBeLessThan(size.contacts);
  });

  it('kill -9 of the runner with its tap and target (its process group) mid-run, then a rerun: the target equals the account', async () => {
    const p = pipelineDirs();
    await fx.faults({ latencyMs: 60 }); // the run outlasts the kill's random delay, as above
    // Its own temp folder: the run's files (the tap's config among them) outlive a killed runner.
    const runTmp = tempConfigDir();
    const { child, ended } = await startPipelineProcess(
      { catalog: discovered, tap: tapCommand({ page_size: 500 }), target: targetCommand(p), stateFile: p.stateFile },
      { ...process.env, TMPDIR: runTmp },
    );
    const started = Date.now();
    while (!existsSync(p.stateFile) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 200)));
    process.kill(-child.pid!, 'SIGKILL');
    const end = await ended;
    outputs.push(
      { where: 'killed runner: stdout', text: end.stdout },
      { where: 'killed runner: stderr', text: end.stderr },
    );
    await fx.clearFaults();
    expect(end.signal).toBe('SIGKILL');
    expect(existsSync(p.stateFile)).toBe(true);
    // The tap and the target died with it: nothing is left in the group.
    const gone = Date.now();
    while (groupAlive(child.pid!) && Date.now() - gone < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(groupAlive(child.pid!)).toBe(false);
    rmSync(runTmp, { recursive: true, force: true });
    const rerun = await run(p, 'rerun after the runner was killed', { settings: { page_size: 500 } });
    expect(rerun.tapArgs).toContain('--state');
    expect(await differences(p)).toEqual([]);
    expect(rerun.counts.records.contacts ?? 0).toBeLessThan((await accountSize()).contacts);
  });

  it('the API key is in no output: stdout and stderr of every process, no saved state, no stored row', () => {
    const key = fx.emulator.keys.full;
    const files = dirs.flatMap(filesUnder);
    expect(files.length).toBeGreaterThan(dirs.length);
    const found = [
      ...outputs.filter((o) => o.text.includes(key)).map((o) => o.where),
      ...files.filter((f) => readFileSync(f, 'latin1').includes(key)),
    ];
    expect(found).toEqual([]);
  });
});

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
