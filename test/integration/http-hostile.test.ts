import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, NotTheApiError, TransientError } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { body } from '../../src/http/endpoint.js';
import { silentLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeHttp } from '../helpers/fake-api.js';
import { behaviours, endlessBytes, hostileServer, type HostileServer } from '../helpers/hostile-server.js';

const KEY = 'sk_live_unit_CANARY0123456789';
const data = z.object({ ok: z.boolean() });
const row = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null);
/** An export page's row of the table, its rows any object. */
const EXPORT_PAGE = {
  method: 'POST',
  path: '/v2/exports/contacts',
  repeat: 'safe',
  gated: false,
  sends: body<object>(),
  answer: { member: 'contacts', row: () => row },
} as const;

describe('HttpClient against a server that is not the API', () => {
  let server: HostileServer;
  let agent: Agent;
  let clock: FakeClock;
  beforeAll(async () => {
    server = await hostileServer();
    agent = new Agent();
  });
  afterAll(async () => {
    await agent.close();
    await server.close();
  });
  beforeEach(() => {
    clock = new FakeClock();
  });

  const client = (opts: { maxAttempts?: number; baseUrl?: string; maxRetryWaitMs?: number } = {}) =>
    new HttpClient({
      baseUrl: opts.baseUrl ?? server.url,
      apiKey: KEY,
      dispatcher: agent,
      limiter: new RateLimiter({ ratePerSecond: 1000, burst: 10, clock }),
      clock,
      logger: silentLogger,
      maxAttempts: opts.maxAttempts ?? 4,
      timeoutMs: 10_000,
      maxRetryWaitMs: opts.maxRetryWaitMs,
      random: () => 0.5,
    });
  const get = (c = client()) => c.request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' }).catch((e) => e);
  const post = (c = client()) =>
    c.request({ method: 'POST', path: '/v2/exports/contacts', body: {}, data, idempotency: 'safe' }).catch((e) => e);

  it('a static file server: 404 and 501 pages are "not the API" (exit 3), not not-found or transient, and no page in the message', async () => {
    server.use(behaviours.staticFiles);
    for (const err of [await get(), await post()]) {
      expect(err).toBeInstanceOf(NotTheApiError);
      expect([err.code, err.exitCode]).toEqual(['not_the_api', 3]);
      expect(err.message).toMatch(
        new RegExp(
          `^this does not look like the API at ${server.url}: (GET /v2/x answered 404|POST /v2/exports/contacts answered 501) with an HTML page \\("Error response"\\)$`,
        ),
      );
      expect(err.message).not.toMatch(/<|DOCTYPE/);
      expect(err.hint).toMatch(/--base-url/);
    }
    expect(clock.sleeps).toEqual([]); // nothing retried
  });

  it('a 200 HTML page, 200 JSON without the envelope, 404 text and a redirect are each "not the API"', async () => {
    const cases: Array<[typeof behaviours.html, RegExp]> = [
      [behaviours.html, /answered 200 with an HTML page \("Welcome to nginx!"\), not JSON$/],
      [
        behaviours.otherJson,
        /answered 200 with JSON that is not the API's envelope \("\{\\"status\\":\\"ok\\",\\"version\\":\\"1\.2\.3\\"\}"\)$/,
      ],
      [behaviours.notFound, /answered 404 with a text\/plain body \("Not Found"\)$/],
      [behaviours.redirect, /answered 302, a redirect to "https:\/\/login\.example\.com\/sso\?next=%2Fv2"$/],
    ];
    for (const [handler, message] of cases) {
      server.use(handler);
      const err = await get();
      expect(err, String(message)).toBeInstanceOf(NotTheApiError);
      expect(err.exitCode).toBe(3);
      expect(err.message).toMatch(message);
    }
  });

  it('an answer nested deeper than 256 levels is refused, not a stack overflow later (exit 1)', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    server.use((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":{"ok":true,"x":${deep}}}`),
    );
    const err = await get();
    expect([err.code, err.exitCode]).toEqual(['response_too_large', 3]);
    expect(err.message).toBe(
      'GET /v2/x: the answer is larger than cnv reads (it nests arrays and objects deeper than 256 levels)',
    );
    const rows: unknown[] = [];
    server.use((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"data":{"contacts":[{"id":"a","x":${deep}}]},"pagination":{"nextCursor":null}}`),
    );
    const page = await client()
      .call(EXPORT_PAGE, { body: {}, receive: () => ({ row: (r) => rows.push(r), end: () => rows }) })
      .catch((e) => e);
    expect(page.message).toMatch(/row 0 of data\.contacts nests deeper than 256 levels/);
    server.use((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"data":{"ok":true,"x":${'['.repeat(200)}${']'.repeat(200)}}}`),
    );
    expect((await client().request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })).data).toEqual({
      ok: true,
    });
  });

  it("a JSON object that breaks off is the API's answer damaged (invalid_response), not another server", async () => {
    server.use((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":tr'));
    const err = await get();
    expect([err.constructor.name, err.code, err.exitCode]).toEqual(['ResponseShapeError', 'invalid_response', 3]);
    expect(err.message).toMatch(/^unexpected response from GET \/v2\/x: the body is not JSON/);
  });

  it('a gateway 502 page is retried like any 502, and in the end is transient (exit 7) naming what answered', async () => {
    server.use(behaviours.badGateway);
    const err = await get(client({ maxAttempts: 3 }));
    expect(err).toBeInstanceOf(TransientError);
    expect([err.code, err.exitCode]).toEqual(['http_502', 7]);
    expect(err.message).toBe(
      `GET /v2/x answered 502 with an HTML page ("502 Bad Gateway"), not an answer of the API (after 3 attempts): a proxy or gateway in front of it failed, or ${server.url} is not the API`,
    );
    expect(clock.sleeps).toHaveLength(2);
    // A workflow trigger is not repeated, and the hint says it may have been applied.
    const unsafe = await client()
      .request({ method: 'POST', path: '/v2/w', body: {}, data, idempotency: 'unsafe' })
      .catch((e) => e);
    expect([unsafe.exitCode, unsafe.hint]).toEqual([
      7,
      'the request may have reached the server and been applied: check before sending it again',
    ]);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('a base URL ending in /v2 reaches /v2/x, not /v2/v2/x', async () => {
    let path = '';
    server.use((req, res) => {
      path = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}');
    });
    expect(
      (
        await client({ baseUrl: `${server.url}/v2/` }).request({
          method: 'GET',
          path: '/v2/x',
          data,
          idempotency: 'safe',
        })
      ).data,
    ).toEqual({ ok: true });
    expect(path).toBe('/v2/x');
  });

  it('an endless answer stops at the answer limit (64 MiB): response_too_large, not retried, not a network error', async () => {
    server.use(behaviours.endlessJson);
    const before = server.requests;
    endlessBytes.sent = 0;
    const err = await get();
    expect(err).toBeInstanceOf(NotTheApiError);
    expect([err.code, err.exitCode]).toEqual(['response_too_large', 3]);
    expect(err.message).toBe('GET /v2/x: the answer is larger than cnv reads (more than 64 MiB)');
    expect(err.hint).toBe(
      "the API's answers are far smaller, unless a record holds values larger than the 10 MiB cnv writes in one row (stored by another tool?): check --base-url; the limits are listed in docs/guarantees.md",
    );
    expect(server.requests - before).toBe(1);
    // The client hung up: what the server could write is the limit plus what socket buffers hold.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(endlessBytes.sent).toBeLessThan(96 * 1024 * 1024);
  });

  it("an endless error body is read up to 64 KiB and is not the API's: retried as a 500, memory bounded", async () => {
    server.use(behaviours.endlessError);
    const err = await get(client({ maxAttempts: 2 }));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.message).toMatch(/^GET \/v2\/x answered 500 with an HTML page/);
    expect(err.message.length).toBeLessThan(400);
  });

  it('an export page with an endless row stops at the row limit; the rows before it were handed over', async () => {
    server.use(behaviours.endlessRow);
    const rows: unknown[] = [];
    const err = await client()
      .call(EXPORT_PAGE, { body: {}, receive: () => ({ row: (r) => rows.push(r), end: () => rows }) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotTheApiError);
    expect(err.code).toBe('response_too_large');
    expect(err.message).toMatch(/row 0 of data\.contacts is larger than 64 MiB/);
    // A row that long is the API's answer about a huge record, not a sign of the wrong server.
    expect(err.hint).toBe(
      'a record holds values larger than the 10 MiB cnv writes in one row (stored by another tool?); the limits are listed in docs/guarantees.md',
    );
    expect(clock.sleeps).toEqual([]);
  });

  it('an export page that is HTML is "not the API"', async () => {
    server.use(behaviours.html);
    const err = await client()
      .call(EXPORT_PAGE, { body: {}, receive: () => ({ row: () => {}, end: () => null }) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotTheApiError);
    expect(err.message).toMatch(
      /^this does not look like the API at .*: POST \/v2\/exports\/contacts answered 200 with an HTML page \("Welcome to nginx!"\), not JSON/,
    );
  });

  it('the key echoed in an error message is masked in the error itself', async () => {
    server.use(behaviours.echoKey);
    const err = await get();
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('bad key sk_live_unit_****');
  });

  it('the key echoed in an export row is masked, even cut between two chunks of the page', async () => {
    server.use((req, res) => {
      const text = JSON.stringify({
        data: { contacts: [{ id: 'a', note: `key ${req.headers['x-api-key']} end` }] },
        pagination: { nextCursor: null },
      });
      const cut = text.indexOf('CANARY') + 3;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(text.slice(0, cut), () => setTimeout(() => res.end(text.slice(cut)), 20));
    });
    const rows: Array<Record<string, unknown>> = [];
    await client().call(EXPORT_PAGE, { body: {}, receive: () => ({ row: (r) => rows.push(r), end: () => rows }) });
    expect(rows).toEqual([{ id: 'a', note: 'key sk_live_unit_**** end' }]);
  });

  it("the key echoed in an export row is masked in the row's text too (what NDJSON writes), cut between chunks, on either path", async () => {
    server.use((req, res) => {
      // Rows 0-1 are read by the scan; from row 2 on the rows start alike and take the bulk path.
      const rows = Array.from({ length: 6 }, (_, i) => ({
        id: `r${i}`,
        note: i % 2 ? `key ${req.headers['x-api-key']} end` : 'plain',
      }));
      const text = JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: null } });
      const cuts = [text.indexOf('CANARY') + 3, text.lastIndexOf('CANARY') + 2];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(text.slice(0, cuts[0]), () =>
        setTimeout(
          () => res.write(text.slice(cuts[0], cuts[1]), () => setTimeout(() => res.end(text.slice(cuts[1])), 20)),
          20,
        ),
      );
    });
    const texts: string[] = [];
    await client().call(EXPORT_PAGE, {
      body: {},
      receive: () => ({ row: (_r, text) => texts.push(text), end: () => null }),
    });
    expect(texts).toEqual(
      Array.from({ length: 6 }, (_, i) =>
        JSON.stringify({ id: `r${i}`, note: i % 2 ? 'key sk_live_unit_**** end' : 'plain' }),
      ),
    );
  });

  // JSON may spell any character as \uXXXX: the key written that way is not in the text, only in the value.
  const escaped = (key: string) => key.replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);

  it('the key echoed behind JSON escapes in an export row is masked in the row and in its text', async () => {
    server.use((req, res) => {
      const row = `{"id":"a","note":"key ${escaped(String(req.headers['x-api-key']))} end","city":"K\\u00f6ln"}`;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"data":{"contacts":[${row},{"id":"b","note":"plain \\u00e9"}]},"pagination":{"nextCursor":null}}`);
    });
    const got: Array<[Record<string, unknown>, string]> = [];
    await client().call(EXPORT_PAGE, {
      body: {},
      receive: () => ({ row: (r, text) => got.push([r, text]), end: () => null }),
    });
    expect(got[0][0]).toEqual({ id: 'a', note: 'key sk_live_unit_**** end', city: 'Köln' });
    // The text keeps the server's spelling; only the key in it is masked.
    expect(got[0][1]).toBe('{"id":"a","note":"key sk_live_unit_**** end","city":"K\\u00f6ln"}');
    expect(got[0][1]).not.toContain('CANARY');
    // A row with escapes but no key is left as it was sent.
    expect(got[1]).toEqual([{ id: 'b', note: 'plain é' }, '{"id":"b","note":"plain \\u00e9"}']);
  });

  it('the key behind one JSON escape is masked when the page is cut inside that escape', async () => {
    server.use((req, res) => {
      const text = `{"data":{"contacts":[{"id":"a","note":"plain"},{"id":"b","note":"key \\u0073${String(req.headers['x-api-key']).slice(1)}"}]},"pagination":{"nextCursor":null}}`;
      const cut = text.indexOf('\\u') + 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(text.slice(0, cut), () => setTimeout(() => res.end(text.slice(cut)), 20));
    });
    const texts: string[] = [];
    await client().call(EXPORT_PAGE, {
      body: {},
      receive: () => ({ row: (_r, text) => texts.push(text), end: () => null }),
    });
    expect(texts).toEqual(['{"id":"a","note":"plain"}', '{"id":"b","note":"key sk_live_unit_****"}']);
  });

  it('the key echoed behind JSON escapes in a success answer is masked too', async () => {
    server.use((req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"data":{"note":"key ${escaped(String(req.headers['x-api-key']))}"}}`),
    );
    const res = await client().request({
      method: 'GET',
      path: '/v2/x',
      data: z.object({ note: z.string() }),
      idempotency: 'safe',
    });
    expect(res.data.note).toBe('key sk_live_unit_****');
  });

  it('the key echoed in a success answer is masked before anyone sees the data', async () => {
    server.use((req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { ok: true, note: `key ${req.headers['x-api-key']}` } })),
    );
    const res = await client().request({
      method: 'GET',
      path: '/v2/x',
      data: z.object({ note: z.string() }),
      idempotency: 'safe',
    });
    expect(res.data.note).toBe('key sk_live_unit_****');
  });
});

describe('HttpClient: Retry-After is capped', () => {
  const mock = fakeHttp(KEY);
  const client = (maxRetryWaitMs?: number) => mock.client({ maxRetryWaitMs });
  const reply = (status: number, retryAfter: string) =>
    mock
      .pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(
        status,
        { error: { code: status === 429 ? 'rate_limited' : 'internal_error', message: 'wait' } },
        { headers: { 'retry-after': retryAfter } },
      );

  it('Retry-After: 999999 gives up at once (exit 7), saying when to try again; nothing slept', async () => {
    reply(429, '999999');
    const err = await client()
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect([err.code, err.exitCode]).toEqual(['rate_limited', 7]);
    expect(err.message).toBe(
      'wait; the server asks to wait 11.6 days (Retry-After) before trying again, longer than the 60 s cnv waits at most',
    );
    expect(err.hint).toMatch(
      /^try again after \d{4}-\d\d-\d\dT.*Z, or allow a longer wait with --max-retry-wait SECONDS/,
    );
    expect(mock.clock.sleeps).toEqual([]);
  });

  it('a far-future HTTP-date gives up at once too (no busy loop)', async () => {
    reply(503, 'Fri, 31 Dec 9999 23:59:59 GMT');
    const err = await client()
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.hint).toMatch(/^try again after 9999-12-31T23:59:59\.000Z/);
    expect(mock.clock.sleeps).toEqual([]);
  });

  it('when the retries are used up, the hint still says when the server wants to be asked again', async () => {
    reply(429, '30');
    const err = await mock
      .client({ maxAttempts: 1 })
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect([err.code, err.exitCode]).toEqual(['rate_limited', 7]);
    expect(err.hint).toMatch(/^try again after \d{4}-\d\d-\d\dT/);
  });

  it('a wait within the limit is honoured; the limit is adjustable', async () => {
    reply(429, '30');
    mock
      .pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(200, { data: { ok: true } });
    await client().request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' });
    expect(Math.max(...mock.clock.sleeps)).toBe(30_000);
    reply(429, '30');
    const err = await client(10_000)
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err.message).toMatch(/asks to wait 30 s .* longer than the 10 s cnv waits at most/);
  });
});
