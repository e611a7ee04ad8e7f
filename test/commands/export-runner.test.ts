import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { MAX_STUCK_PAGES } from '../../src/exports/runner.js';
import { ExportStateStore } from '../../src/exports/state-store.js';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';

// In-process runs against undici's MockAgent: the server behaviours the emulator does not show.
const BASE = 'https://api.test';
const KEY = 'default@api.test/contacts';
let agent: MockAgent;
let env: Record<string, string>;
let dir: string;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = tempConfigDir();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir };
});
afterEach(() => agent.close());

const contact = (id: string, extra: Record<string, unknown> = {}) => ({ id, email: `${id}@example.com`, updatedAt: `2025-01-01T00:00:0${id.length}Z`, ...extra });
/** Answers POST /v2/exports/contacts sent with `cursor` (undefined: the first call). */
function page(cursor: string | undefined, rows: unknown[], next: string | null, times = 1) {
  agent
    .get(BASE)
    .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === cursor })
    .reply(200, { data: { contacts: rows }, pagination: { nextCursor: next } })
    .times(times);
}
const run = (args: string[], opts: { signal?: AbortSignal } = {}) => cnvInProcess(['export', 'contacts', ...args], { env, dispatcher: agent, ...opts });
const state = async () => (await ExportStateStore.open(dir)).read(KEY);
const outFile = () => join(mkdtempSync(join(dir, 'out-')), 'contacts.ndjson');

describe('export runner (in-process, MockAgent)', () => {
  it('keeps going through empty pages with a non-null cursor, committing each new cursor', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], 'c2');
    page('c2', [], 'c3');
    page('c3', [contact('b', { novel: { kept: true } })], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['a', 'b']);
    expect(readFileSync(out, 'utf8')).toContain('"novel":{"kept":true}');
    const s = await state();
    expect(s?.current).toMatchObject({ cursor: 'c3', rows: 2, pages: 4, seen: ['b@2025-01-01T00:00:01Z'] });
    expect(res.stderr).toMatch(/2 rows in 4 pages .*more remains: no/);
  });

  it('the last page\'s rows are remembered exactly, even ids that UTF-8 cannot hold or that hold a line break', async () => {
    const odd = [contact('lone\ud800surrogate'), contact('line\nbreak'), contact('"quoted"'), contact('plain')];
    page(undefined, odd, null, 2);
    const out = outFile();
    expect((await run(['--out', out])).exitCode).toBe(0);
    expect((await state())?.current.seen).toEqual(odd.map((c) => `${c.id}@${c.updatedAt}`));
    const again = await run(['--out', out]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/complete: 0 rows \(4 more rows were already written by an earlier run and left out\)/);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);
  });

  it(`a cursor that does not move across ${MAX_STUCK_PAGES} empty pages is an error (exit 7), not an endless loop`, async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], 'c1', MAX_STUCK_PAGES);
    const res = await run(['--out', outFile()]);
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(/stuck_cursor: .*empty pages in a row without moving the cursor/);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 1 });
  });

  it('transient failures exhausted: exit 7 with everything before committed; the next run continues', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    agent.get(BASE).intercept({ path: '/v2/exports/contacts', method: 'POST' }).reply(503, { error: { code: 'unavailable', message: 'down' } }).times(4);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(7);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 2, output: { kind: 'file', bytes: readFileSync(out).length } });
    expect((await state())?.runs.at(-1)).toMatchObject({ status: 'failed', rows: 2, error: expect.stringMatching(/down/) });
    page('c1', [contact('ccc')], null);
    const next = await run(['--out', out]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['a', 'bb', 'ccc']);
  });

  it('a saved cursor the server rejects: exit 3, state untouched, the hint names --full', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], null);
    const out = outFile();
    expect((await run(['--out', out])).exitCode).toBe(0);
    const store = await ExportStateStore.open(dir);
    const before = readFileSync(store.pathOf(KEY), 'utf8');
    agent.get(BASE).intercept({ path: '/v2/exports/contacts', method: 'POST' }).reply(400, { error: { code: 'invalid_cursor', message: 'Cursor is invalid or malformed' } });
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_cursor: the server rejected the saved cursor of export state "default@api.test\/contacts".*unchanged/);
    expect(res.stderr).toMatch(/hint: .*--full/);
    expect(readFileSync(store.pathOf(KEY), 'utf8')).toBe(before);
  });

  it('--max-pages and --max-rows bound a run; the state keeps the place', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    const res = await run(['--out', outFile(), '--max-pages', '1', '--json']);
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stderr.trim()).summary).toMatchObject({ status: 'stopped', rows: 2, pages: 1, moreRemains: true, stateKey: KEY });
    // --max-rows asks the server for no more than what is left.
    agent.get(BASE).intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' && JSON.parse(b).limit === 1 })
      .reply(200, { data: { contacts: [contact('ccc')] }, pagination: { nextCursor: 'c2' } });
    const rows = await run(['--max-rows', '1', '--no-progress'], {});
    expect(rows.exitCode, rows.stderr).toBe(0);
    expect(JSON.parse(rows.stdout).id).toBe('ccc');
  });

  it('a row that breaks the contract stops the run (exit 3) before anything of that page is written', async () => {
    page(undefined, [{ email: 'no-id@example.com' }], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_response: .*expected an object with a string id/);
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('SIGINT abandons the page in flight and keeps what is committed (exit 130)', async () => {
    page(undefined, [contact('a')], 'c1');
    agent.get(BASE).intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' })
      .reply(200, { data: { contacts: [contact('late')] }, pagination: { nextCursor: null } }).delay(3000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new InterruptedError('SIGINT')), 400);
    const out = outFile();
    const res = await run(['--out', out], { signal: controller.signal });
    expect(res.exitCode).toBe(130);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['a']);
    expect((await state())?.runs.at(-1)).toMatchObject({ status: 'interrupted', rows: 1 });
    expect(res.stderr).toMatch(/interrupted: 1 row in 1 page /);
  });

  it('--defer-commit to stdout writes a pending position that `export state commit` makes current', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    page('c1', [], null);
    const res = await run(['--defer-commit']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(2);
    expect(res.stderr).toMatch(/pending until `cnv export state commit default@api.test\/contacts`/);
    let s = await state();
    expect(s?.current).toMatchObject({ cursor: null, rows: 0 });
    expect(s?.pending).toMatchObject({ cursor: 'c1', rows: 2 });
    const commit = await cnvInProcess(['export', 'state', 'commit', KEY, '--json'], { env });
    expect(commit.exitCode, commit.stderr).toBe(0);
    expect(JSON.parse(commit.stdout)).toMatchObject({ committed: true, rows: 2, added: 2 });
    s = await state();
    expect(s?.pending).toBeUndefined();
    expect(s?.current).toMatchObject({ cursor: 'c1', rows: 2 });
    expect(s?.runs.at(-1)?.status).toBe('committed');
    const twice = await cnvInProcess(['export', 'state', 'commit', KEY], { env });
    expect(twice.exitCode).toBe(0);
    expect(twice.stderr).toMatch(/nothing pending/);
  });

  it('usage errors: a table format, --columns with NDJSON, --defer-commit with a file, --until without --since', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['export', 'contacts', '-o', 'table'], /an export writes csv or ndjson/],
      [['export', 'contacts', '--columns', 'id'], /--columns applies to CSV output only/],
      [['export', 'contacts', '--defer-commit', '--out', 'x.csv'], /--defer-commit is for stdout/],
      [['export', 'contacts', '--no-state', '--state-key', 'k'], /do not go together/],
      [['export', 'custom-events', '--until', '2025-01-01'], /--until goes with --since/],
      [['export', 'custom-events', '--since', 'last tuesday'], /--since: expected an ISO 8601/],
      [['export', 'email-events'], /--type is required/],
      [['export', 'email-events', '--type', 'EMAIL_FORWARD'], /expected one of EMAIL_SEND/],
    ];
    for (const [args, message] of cases) {
      const res = await cnvInProcess(args, { env, dispatcher: agent });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('custom events --full without --since keeps the saved window\'s start, and takes a new --until', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    agent
      .get(BASE)
      .intercept({ path: '/v2/exports/custom-events', method: 'POST', body: (b) => (bodies.push(JSON.parse(b)), true) })
      .reply(200, { data: { events: [] }, pagination: { nextCursor: null } })
      .persist();
    const events = (args: string[]) => cnvInProcess(['export', 'custom-events', '--state-key', 'win', '-o', 'ndjson', ...args], { env, dispatcher: agent });
    expect((await events(['--since', '2025-01-01', '--until', '2025-02-01'])).exitCode).toBe(0);
    expect((await events(['--full', '--until', '2025-03-01'])).exitCode).toBe(0);
    expect((await events(['--full'])).exitCode).toBe(0);
    expect(bodies.map((b) => b.occurredAt)).toEqual([
      { start: '2025-01-01T00:00:00.000Z', end: '2025-02-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
    ]);
    const before = await events(['--full', '--until', '2024-12-01']);
    expect([before.exitCode, before.stderr]).toEqual([2, expect.stringMatching(/--until: must not be before the window's start \(2025-01-01T00:00:00.000Z\)/)]);
  });
});
