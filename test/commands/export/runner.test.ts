import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors.js';
import { MAX_SEEN, MAX_STUCK_PAGES } from '../../../src/exporter/runner.js';
import { ExportStateStore } from '../../../src/exporter/state-store.js';
import { HttpClient } from '../../../src/http/client.js';
import { requestOf } from '../../../src/http/endpoint.js';
import { rowsData } from '../../../src/http/envelope.js';
import { parseJson } from '../../../src/json/exact-json.js';
import { stringifyJson } from '../../../src/lib/exact-number.js';
import { readPagesWhole } from '../../bench/whole-page-reader.mjs';
import { cnvInProcess } from '../../helpers/cli.js';
import { answerContactsPage, exportContact, MOCK_API, useFakeApi } from '../../helpers/fake-api.js';

// In-process runs against undici's MockAgent: the server behaviours the emulator does not show.
const BASE = MOCK_API;
const KEY = 'sk_live_mock@api.test/contacts';
const api = useFakeApi({ contactFields: true });

const contact = exportContact;
const page = (cursor: string | undefined, rows: unknown[], next: string | null, times = 1) =>
  answerContactsPage(api.agent, cursor, rows, next, times);
const run = (args: string[], opts: { signal?: AbortSignal } = {}) =>
  cnvInProcess(['export', 'contacts', ...args], { env: api.env, dispatcher: api.dispatcher, ...opts });
/** The state of `key`, or the one state of the test (file exports' default keys name the file). */
const state = async (key?: string) => {
  const store = await ExportStateStore.open(api.dir);
  if (key) return store.read(key);
  const all = store.list();
  expect(all).toHaveLength(1);
  return all[0];
};
/** A contact's saved identities without their content hashes (`id@updatedAt#k<16 hex>`: each is checked to have one). */
const versions = (seen: readonly string[]) =>
  seen.map((id) => {
    expect(id).toMatch(/#k[0-9a-f]{16}$/);
    return id.slice(0, -18);
  });
const fileKey = (out: string) => `${KEY}:${out}`;
/** The ids of the rows an NDJSON file holds, in order. */
const idsIn = (out: string) =>
  readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id);
const outFile = () => join(mkdtempSync(join(api.dir, 'out-')), 'contacts.ndjson');
/** A run's summary document: --json's on stdout when the rows go to --out, else --summary-json's file (stdout holds the rows). */
const summaryOf = async (args: string[]) => {
  if (args.includes('--out')) return JSON.parse((await run([...args, '--json'])).stdout);
  const file = join(mkdtempSync(join(api.dir, 'summary-')), 'summary.json');
  await run([...args, '--summary-json', file]);
  return JSON.parse(readFileSync(file, 'utf8'));
};

describe('export runner (in-process, MockAgent)', () => {
  it('keeps going through empty pages with a non-null cursor, committing each new cursor', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], 'c2');
    page('c2', [], 'c3');
    page('c3', [contact('b', { novel: { kept: true } })], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(idsIn(out)).toEqual(['a', 'b']);
    expect(readFileSync(out, 'utf8')).toContain('"novel":{"kept":true}');
    const s = await state();
    expect(s?.current).toMatchObject({ cursor: 'c3', rows: 2, pages: 4 });
    expect(versions(s!.current.seen)).toEqual(['b@2025-01-01T00:00:01Z']);
    expect(res.stderr).toMatch(/2 rows in 4 pages .*more remains: no/);
  });

  it("the last page's rows are remembered exactly, even ids that UTF-8 cannot hold or that hold a line break", async () => {
    const odd = [contact('lone\ud800surrogate'), contact('line\nbreak'), contact('"quoted"'), contact('plain')];
    page(undefined, odd, null, 2);
    const out = outFile();
    expect((await run(['--out', out])).exitCode).toBe(0);
    expect(versions((await state())!.current.seen)).toEqual(odd.map((c) => `${c.id}@${c.updatedAt}`));
    const again = await run(['--out', out]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /complete: nothing new since the last run \(4 rows of the last page fetched again: already written, left out\)/,
    );
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);
  });

  it(`a cursor that does not move across ${MAX_STUCK_PAGES} empty pages is an error (exit 7), not an endless loop`, async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], 'c1', MAX_STUCK_PAGES);
    const res = await run(['--out', outFile()]);
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(/stuck_cursor: .*pages in a row without moving the cursor or sending a new row/);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 1 });
  });

  it('transient failures exhausted: exit 7 with everything before committed; the next run continues', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST' })
      .reply(503, { error: { code: 'unavailable', message: 'down' } })
      .times(4);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(7);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await state())?.current).toMatchObject({
      cursor: 'c1',
      rows: 2,
      output: { kind: 'file', bytes: readFileSync(out).length },
    });
    expect((await state())?.runs.at(-1)).toMatchObject({
      status: 'failed',
      rows: 2,
      error: expect.stringMatching(/down/),
    });
    page('c1', [contact('ccc')], null);
    const next = await run(['--out', out]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['a', 'bb', 'ccc']);
  });

  it('a saved cursor the server rejects: exit 3, state untouched, the hint names --full', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [], null);
    const out = outFile();
    expect((await run(['--out', out])).exitCode).toBe(0);
    const store = await ExportStateStore.open(api.dir);
    const before = readFileSync(store.pathOf(fileKey(out)), 'utf8');
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST' })
      .reply(400, { error: { code: 'invalid_cursor', message: 'Cursor is invalid or malformed' } });
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(
      /invalid_cursor: the server rejected the saved cursor of export state "sk_live_mock@api.test\/contacts:\/.*contacts.ndjson".*unchanged/,
    );
    expect(res.stderr).toMatch(/hint: .*--full/);
    expect(readFileSync(store.pathOf(fileKey(out)), 'utf8')).toBe(before);
  });

  it('--max-pages and --max-rows bound a run; the state keeps the place', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    const file = join(mkdtempSync(join(api.dir, 'summary-')), 'summary.json');
    // Rows to stdout keep a position only when --state-key names one.
    const res = await run(['--max-pages', '1', '--state-key', 'bounded', '--summary-json', file]);
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      status: 'stopped',
      rows: 2,
      pages: 1,
      moreRemains: true,
      stateKey: 'bounded',
    });
    // --max-rows asks the server for no more than what is left.
    api.agent
      .get(BASE)
      .intercept({
        path: '/v2/exports/contacts',
        method: 'POST',
        body: (b) => JSON.parse(b).cursor === 'c1' && JSON.parse(b).limit === 1,
      })
      .reply(200, { data: { contacts: [contact('ccc')] }, pagination: { nextCursor: 'c2' } });
    const rows = await run(['--max-rows', '1', '--state-key', 'bounded', '--no-progress'], {});
    expect(rows.exitCode, rows.stderr).toBe(0);
    expect(JSON.parse(rows.stdout).id).toBe('ccc');
  });

  it('a row that breaks the contract stops the run (exit 3) before anything of that page is written', async () => {
    page(undefined, [{ email: 'no-id@example.com' }], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_response: .*expected an object with a string id/);
    // The first run made the file: failing before its first page, it leaves none.
    expect(existsSync(out)).toBe(false);
  });

  it('SIGINT abandons the page in flight and keeps what is committed (exit 130)', async () => {
    page(undefined, [contact('a')], 'c1');
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' })
      .reply(200, { data: { contacts: [contact('late')] }, pagination: { nextCursor: null } })
      .delay(3000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new InterruptedError('SIGINT')), 400);
    const out = outFile();
    const res = await run(['--out', out], { signal: controller.signal });
    expect(res.exitCode).toBe(130);
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['a']);
    expect((await state())?.runs.at(-1)).toMatchObject({ status: 'interrupted', rows: 1 });
    expect(res.stderr).toMatch(/interrupted: 1 row in 1 page /);
  });

  it('--defer-commit to stdout writes a pending position that `export state commit` makes current', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    page('c1', [], null);
    const res = await run(['--defer-commit', '--run', 'r1', '--state-key', 'pipe']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(2);
    expect(res.stderr).toMatch(/pending until `cnv export state commit pipe --run r1`/);
    let s = await state('pipe');
    expect(s?.current).toMatchObject({ cursor: null, rows: 0 });
    expect(s?.pending).toMatchObject({ cursor: 'c1', rows: 2 });
    const commit = await cnvInProcess(['export', 'state', 'commit', 'pipe', '--run', 'r1', '--json'], {
      env: api.env,
    });
    expect(commit.exitCode, commit.stderr).toBe(0);
    expect(JSON.parse(commit.stdout)).toMatchObject({ committed: true, rows: 2, added: 2 });
    s = await state('pipe');
    expect(s?.pending).toBeUndefined();
    expect(s?.current).toMatchObject({ cursor: 'c1', rows: 2 });
    expect(s?.runs.at(-1)?.status).toBe('committed');
    const twice = await cnvInProcess(['export', 'state', 'commit', 'pipe', '--run', 'r1'], { env: api.env });
    expect(twice.exitCode).toBe(0);
    expect(twice.stderr).toMatch(/run r1 is committed already/);
    const unnamed = await cnvInProcess(['export', 'state', 'commit', 'pipe'], { env: api.env });
    expect([unnamed.exitCode, unnamed.stderr]).toEqual([2, expect.stringMatching(/--run is required/)]);
    const unknown = await cnvInProcess(['export', 'state', 'commit', 'pipe', '--run', 'nope'], { env: api.env });
    expect([unknown.exitCode, unknown.stderr]).toEqual([5, expect.stringMatching(/run_not_found/)]);
  });

  it('usage errors: a table format, --columns with NDJSON, --defer-commit with a file, --until without --since', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['export', 'contacts', '-o', 'table'], /an export writes csv or ndjson/],
      [['export', 'contacts', '--columns', 'id'], /--columns applies to CSV output only/],
      [['export', 'contacts', '--defer-commit', '--out', 'x.csv'], /--defer-commit is for stdout/],
      [['export', 'contacts', '--no-state', '--state-key', 'k'], /do not go together/],
      [['export', 'custom-events', '--until', '2025-01-01'], /--until goes with --since/],
      [
        ['export', 'custom-events', '--since', 'last tuesday'],
        /--since: expected a duration before now \(24h, 7d, 30m, 2w\), an ISO 8601/,
      ],
      [['export', 'email-events'], /--type is required/],
      [
        ['export', 'email-events', '--type', 'EMAIL_FORWARD'],
        /--type: expected all, or one or a comma list of EMAIL_SEND.*got "EMAIL_FORWARD"/,
      ],
    ];
    for (const [args, message] of cases) {
      const res = await cnvInProcess(args, { env: api.env, dispatcher: api.dispatcher });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
  });
});

describe('export runner: page size', () => {
  it("asks for the API's largest page by default (5,000 contacts and email events, 1,000 custom events); --limit overrides, clamped", async () => {
    const limits: Array<[string, unknown]> = [];
    for (const [path, member] of [
      ['/v2/exports/contacts', 'contacts'],
      ['/v2/exports/email-events', 'events'],
      ['/v2/exports/custom-events', 'events'],
    ]) {
      api.agent
        .get(BASE)
        .intercept({
          path,
          method: 'POST',
          body: (b) => (limits.push([path.slice('/v2/exports/'.length), JSON.parse(b).limit]), true),
        })
        .reply(200, { data: { [member]: [] }, pagination: { nextCursor: null } })
        .persist();
    }
    const cases: Array<[string[], [string, number]]> = [
      [['contacts'], ['contacts', 5000]],
      [
        ['email-events', '--type', 'EMAIL_OPEN'],
        ['email-events', 5000],
      ],
      [
        ['custom-events', '--since', '2025-01-01'],
        ['custom-events', 1000],
      ],
      [
        ['contacts', '--limit', '700'],
        ['contacts', 700],
      ],
      [
        ['contacts', '--limit', '9000'],
        ['contacts', 5000],
      ],
      [
        ['custom-events', '--since', '2025-01-01', '--limit', '5000'],
        ['custom-events', 1000],
      ],
      [
        ['email-events', '--type', 'EMAIL_OPEN', '--limit', '0'],
        ['email-events', 1],
      ],
    ];
    for (const [args, asked] of cases) {
      limits.length = 0;
      const res = await cnvInProcess(['export', ...args, '--no-state', '-o', 'ndjson'], {
        env: api.env,
        dispatcher: api.dispatcher,
      });
      expect(res.exitCode, res.stderr).toBe(0);
      expect(limits, args.join(' ')).toEqual([asked]);
    }
  });
});

describe('export runner: NDJSON rows are the bytes the API sent', () => {
  it('numbers past 2^53, escapes and member order are kept; reading the page whole (test/bench/whole-page-reader.mjs, what the splitter is measured against) loses escapes and order', async () => {
    const rows = [
      '{"id":"a","updatedAt":"t","big":12345678901234567890,"b":1,"2":"two","x":1.50}',
      '{"id":"b","updatedAt":"t","name":"caf\\u00e9 \\/ \\"q\\"","n":1e2,"z":-0}',
    ];
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST' })
      .reply(200, `{"data":{"contacts":[${rows.join(',')}]},"pagination":{"nextCursor":null}}`)
      .persist();
    const asSent = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson'], {
      env: api.env,
      dispatcher: api.dispatcher,
    });
    expect(asSent.exitCode, asSent.stderr).toBe(0);
    expect(asSent.stdout).toBe(rows.map((r) => r + '\n').join(''));
    const restore = readPagesWhole({ HttpClient, requestOf, rowsData, stringifyJson });
    const whole = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson'], {
      env: api.env,
      dispatcher: api.dispatcher,
    }).finally(restore);
    expect(whole.exitCode, whole.stderr).toBe(0);
    // Read whole, a page keeps its numbers' digits (the HTTP core reads every answer so) but
    // not the API's spelling: escapes, member order, 1.50 and 1e2.
    expect(whole.stdout).toBe(rows.map((r) => stringifyJson(parseJson(r)) + '\n').join(''));
    expect(whole.stdout).toContain('"big":12345678901234567890');
    expect(
      whole.stdout
        .split('\n')
        .filter(Boolean)
        .every((line, i) => line !== rows[i]),
    ).toBe(true);
  });
});

describe('export runner: default state keys per output', () => {
  it('each file has its own default key, rows to stdout keep none (issue 47); a file state is not moved to stdout', async () => {
    page(undefined, [contact('a')], null, 4);
    const one = outFile();
    const two = outFile();
    expect(await summaryOf(['--out', one])).toMatchObject({ stateKey: fileKey(one), rows: 1 });
    expect(await summaryOf(['--out', two])).toMatchObject({ stateKey: fileKey(two), rows: 1 });
    expect(await summaryOf([])).toMatchObject({ stateKey: null, rows: 1 });
    const moved = await run(['--state-key', fileKey(one)]);
    expect(moved.exitCode).toBe(2);
    expect(moved.stderr).toMatch(
      /error: state_belongs_to_file: export state ".*" writes to .*contacts\.ndjson; exporting it to stdout would move its position/,
    );
  });

  it('the default key of earlier versions (no output part) is never looked for: its file is refused, naming that key; stdout keeps none', async () => {
    page(undefined, [contact('a')], null, 3);
    const out = outFile();
    expect((await run(['--out', out, '--state-key', KEY])).exitCode).toBe(0);
    const again = await run(['--out', out]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(`error: file_not_empty: --out ${out} already holds`);
    expect(again.stderr).toContain(
      `hint: export state "${KEY}" (profile "default") writes this file: --state-key ${KEY} continues it`,
    );
    expect(await summaryOf([])).toMatchObject({ stateKey: null, rows: 1, skipped: 0 });
  });

  it('one account: a state made with the base URL typed with a trailing slash continues with it typed without', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [contact('b')], null, 2);
    const out = outFile();
    const slashed = await cnvInProcess(['export', 'contacts', '--out', out], {
      env: { ...api.env, CNV_BASE_URL: `${BASE}/` },
      dispatcher: api.dispatcher,
    });
    expect(slashed.exitCode, slashed.stderr).toBe(0);
    const again = await run(['--out', out]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(idsIn(out)).toEqual(['a', 'b']);
  });
});

describe('export runner: a server that breaks the pagination contract cannot duplicate a row', () => {
  const ids = (path: string) =>
    readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);

  it('a non-empty page that returns the cursor it was asked with: its rows once, then stuck_cursor (exit 7), nothing wrong committed', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [contact('bb'), contact('ccc')], 'c1', MAX_STUCK_PAGES + 1);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(7);
    expect(res.stderr).toMatch(/stuck_cursor/);
    expect(ids(out)).toEqual(['a', 'bb', 'ccc']);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 3 });
    expect(versions((await state())!.current.seen)).toEqual(['bb@2025-01-01T00:00:02Z', 'ccc@2025-01-01T00:00:03Z']);
    // The server recovers: the next run skips what that cursor gave already.
    page('c1', [contact('bb'), contact('ccc'), contact('dddd')], null);
    const next = await run(['--out', out]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /complete: resumed at row 4; 1 new row \(2 rows of the last page fetched again: already written, left out\)/,
    );
    expect(ids(out)).toEqual(['a', 'bb', 'ccc', 'dddd']);
  });

  it('a cursor that cycles back to one this run already fetched from stops the run (exit 3) instead of looping', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [contact('bb')], 'c2');
    page('c2', [contact('ccc')], 'c1');
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(3);
    expect(res.stderr).toMatch(
      /handed back a cursor it had already given in this run \(a cycle\); stopped before writing that page/,
    );
    expect(ids(out)).toEqual(['a', 'bb']);
    expect((await state())?.current).toMatchObject({ cursor: 'c2', rows: 2 });
  });

  it('a row the next page sends again (an overlapping page boundary) is written once (with a warning)', async () => {
    page(undefined, [contact('a'), contact('bb')], 'c1');
    page('c1', [contact('bb'), contact('ccc')], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/sent 1 rows on page 2 that page 1 delivered already; each was written once/);
    expect(ids(out)).toEqual(['a', 'bb', 'ccc']);
    expect(versions((await state())!.current.seen)).toEqual(['bb@2025-01-01T00:00:02Z', 'ccc@2025-01-01T00:00:03Z']);
    page('c1', [contact('bb'), contact('ccc')], null);
    const again = await run(['--out', out]);
    expect(again.stderr).toMatch(
      /complete: nothing new since the last run \(2 rows of the last page fetched again: already written, left out\)/,
    );
  });

  it('the same row twice within one page is written once (with a warning)', async () => {
    page(undefined, [contact('a'), contact('bb'), contact('a')], null);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/sent 1 rows of page 1 twice within the page; each was written once/);
    expect(ids(out)).toEqual(['a', 'bb']);
    expect(versions((await state())!.current.seen)).toEqual(['a@2025-01-01T00:00:01Z', 'bb@2025-01-01T00:00:02Z']);
  });

  it('a page with more rows than asked for is refused before anything of it is written (exit 3)', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [contact('bb'), contact('ccc'), contact('dddd')], null);
    const out = outFile();
    const res = await run(['--out', out, '--limit', '2']);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(
      /invalid_response: export contacts: the server sent more than the 2 rows asked for in one page/,
    );
    expect(ids(out)).toEqual(['a']);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 1 });
  });

  it(`a cursor that stays put while new rows keep coming stops before the ${MAX_SEEN} remembered rows would be forgotten`, async () => {
    let served = 0;
    const rows = (n: number) => Array.from({ length: n }, () => contact(`r${served++}`));
    page(undefined, [contact('a')], 'c1');
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' })
      .reply(200, () => ({ data: { contacts: rows(5000) }, pagination: { nextCursor: 'c1' } }))
      .persist();
    const out = outFile();
    const res = await run(['--out', out, '--limit', '5000']);
    expect(res.exitCode, res.stderr).toBe(3);
    expect(res.stderr).toMatch(
      /kept the cursor where it was while sending 25000 distinct rows from it, more than the 20000 a state remembers/,
    );
    const written = ids(out);
    expect(written).toHaveLength(1 + MAX_SEEN);
    expect(new Set(written).size).toBe(written.length);
    expect((await state())?.current).toMatchObject({ cursor: 'c1', rows: 1 + MAX_SEEN });
    expect((await state())?.current.seen).toHaveLength(MAX_SEEN);
  });
});

describe('--excel-safe (CSV)', () => {
  const risky = {
    id: '=1+2',
    email: '+x@example.com',
    sfdcLeadId: '-3',
    sfdcContactId: '@SUM(A1)',
    sfdcAccountId: '\tx',
    subscriptionStatus: '\rx',
    createdAt: 'a=b',
    updatedAt: '2025-01-01T00:00:00Z',
  };
  it('prefixes a quote to values a spreadsheet would run; exact by default; NDJSON refuses the flag', async () => {
    api.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields'), method: 'GET' })
      .reply(200, { data: { fields: [] }, pagination: { nextCursor: null } })
      .persist();
    page(undefined, [risky], null, 2);
    const csv = async (args: string[]) => {
      const res = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'csv', ...args], {
        env: api.env,
        dispatcher: api.dispatcher,
      });
      expect(res.exitCode, res.stderr).toBe(0);
      const [header, row] = parse(res.stdout) as string[][];
      return Object.fromEntries(header.map((h, i) => [h, row[i]]));
    };
    expect(await csv(['--excel-safe'])).toMatchObject({
      id: "'=1+2",
      email: "'+x@example.com",
      sfdcLeadId: "'-3",
      sfdcContactId: "'@SUM(A1)",
      sfdcAccountId: "'\tx",
      subscriptionStatus: "'\rx",
      createdAt: 'a=b',
      updatedAt: '2025-01-01T00:00:00Z',
    });
    expect(await csv([])).toMatchObject(risky);
    const ndjson = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson', '--excel-safe'], {
      env: api.env,
      dispatcher: api.dispatcher,
    });
    expect([ndjson.exitCode, ndjson.stderr]).toEqual([
      2,
      expect.stringMatching(/--excel-safe applies to CSV output only/),
    ]);
  });
});
