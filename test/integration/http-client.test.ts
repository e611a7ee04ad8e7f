import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, NotTheApiError, ResponseShapeError, TransientError } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { body } from '../../src/http/endpoint.js';
import { silentLogger, stderrLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { makeRedactor } from '../../src/redact/redact.js';
import { fakeHttp } from '../helpers/fake-api.js';
import { Writable } from 'node:stream';

const KEY = 'sk_live_unit_CANARY0123456789';

describe('HttpClient', () => {
  const mock = fakeHttp(KEY);
  const client = (maxAttempts = 4, logger = silentLogger) => mock.client({ maxAttempts, logger });
  const { pool } = mock;
  const data = z.object({ ok: z.boolean() });

  it('sends the key and JSON headers, and returns the validated data', async () => {
    pool()
      .intercept({
        path: '/v2/x',
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: '{"a":1}',
      })
      .reply(200, { data: { ok: true, extra: 'tolerated' } });
    const res = await client().request({ method: 'POST', path: '/v2/x', body: { a: 1 }, data, idempotency: 'safe' });
    expect(res.data).toEqual({ ok: true });
    expect(res.attempts).toBe(1);
  });

  it('retries 500 and 503 with backoff, then succeeds', async () => {
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(500, { error: { code: 'internal_error', message: 'boom' } });
    pool().intercept({ path: '/v2/x', method: 'GET' }).reply(503, 'unavailable');
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(200, { data: { ok: true } });
    const res = await client().request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' });
    expect(res.attempts).toBe(3);
    expect(mock.clock.sleeps).toEqual([250, 500]);
  });

  it('honours Retry-After as a lower bound on 429', async () => {
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(429, { error: { code: 'rate_limited', message: 'slow down' } }, { headers: { 'retry-after': '3' } });
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(200, { data: { ok: true } });
    await client().request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' });
    expect(Math.max(...mock.clock.sleeps)).toBeGreaterThanOrEqual(3000);
  });

  it('gives up after the attempt budget with the last error', async () => {
    for (let i = 0; i < 3; i++)
      pool()
        .intercept({ path: '/v2/x', method: 'GET' })
        .reply(500, { error: { code: 'internal_error', message: 'boom' } });
    const err = await client(3)
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toContain('after 3 attempts');
  });

  it('does not retry other 4xx and maps the error body to a typed error', async () => {
    pool()
      .intercept({ path: '/v2/x', method: 'POST' })
      .reply(400, { error: { code: 'invalid_email', message: 'bad email' } });
    const err = await client()
      .request({ method: 'POST', path: '/v2/x', body: {}, data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code, err.message, err.exitCode]).toEqual([400, 'invalid_email', 'bad email', 3]);
  });

  it('does not retry an unsafe request after a 500, but does after a 429', async () => {
    pool()
      .intercept({ path: '/v2/w', method: 'POST' })
      .reply(500, { error: { code: 'internal_error', message: 'boom' } });
    const err = await client()
      .request({ method: 'POST', path: '/v2/w', body: {}, data, idempotency: 'unsafe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);

    pool()
      .intercept({ path: '/v2/w', method: 'POST' })
      .reply(429, { error: { code: 'rate_limited', message: 'slow' } });
    pool()
      .intercept({ path: '/v2/w', method: 'POST' })
      .reply(200, { data: { ok: true } });
    const res = await client().request({ method: 'POST', path: '/v2/w', body: {}, data, idempotency: 'unsafe' });
    expect(res.attempts).toBe(2);
  });

  it('retries network errors for safe requests and reports them as transient at the end', async () => {
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const err = await client(2)
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.exitCode).toBe(7);
  });

  it('an unsafe request cut off mid-flight is not repeated, and the hint says it may have been applied', async () => {
    pool()
      .intercept({ path: '/v2/w', method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const err = await client()
      .request({ method: 'POST', path: '/v2/w', body: {}, data, idempotency: 'unsafe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.hint).toMatch(/may have reached the server/);
  });

  it('turns a body that breaks the contract into a clear error, not a crash', async () => {
    pool()
      .intercept({ path: '/v2/x', method: 'GET' })
      .reply(200, { data: { ok: 'yes' } });
    const err = await client()
      .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toMatch(/data\.ok/);
    // A body that is not JSON at all is not the API's (test/integration/http-hostile.test.ts has more).
    pool().intercept({ path: '/v2/x', method: 'GET' }).reply(200, 'not json');
    expect(
      await client()
        .request({ method: 'GET', path: '/v2/x', data, idempotency: 'safe' })
        .catch((e) => e),
    ).toBeInstanceOf(NotTheApiError);
  });

  it('requires pagination when the endpoint is paginated', async () => {
    pool()
      .intercept({ path: '/v2/p', method: 'GET' })
      .reply(200, { data: { ok: true }, pagination: { nextCursor: 'abc' } });
    const res = await client().request({ method: 'GET', path: '/v2/p', data, paginated: true, idempotency: 'safe' });
    expect(res.nextCursor).toBe('abc');
    pool()
      .intercept({ path: '/v2/p', method: 'GET' })
      .reply(200, { data: { ok: true } });
    expect(
      await client()
        .request({ method: 'GET', path: '/v2/p', data, paginated: true, idempotency: 'safe' })
        .catch((e) => e),
    ).toBeInstanceOf(ResponseShapeError);
  });

  it('logs one line per request and response without the key', async () => {
    let log = '';
    const sink = new Writable({
      write(chunk, _e, cb) {
        log += chunk;
        cb();
      },
    });
    pool()
      .intercept({ path: '/v2/x?email=a%40b.c', method: 'GET' })
      .reply(200, { data: { ok: true } });
    await client(4, stderrLogger(sink, makeRedactor([KEY]))).request({
      method: 'GET',
      path: '/v2/x',
      query: { email: 'a@b.c' },
      data,
      idempotency: 'safe',
    });
    expect(log).toMatch(/> GET \/v2\/x\?email=a%40b\.c attempt=1/);
    expect(log).toMatch(/< 200 GET \/v2\/x attempt=1 \d+ms/);
    expect(log).not.toContain('CANARY');
  });
  describe('call of an export page (its rows streamed one by one)', () => {
    const row = z.custom<Record<string, unknown>>((v) => typeof (v as { id?: unknown })?.id === 'string', {
      message: 'expected an object with a string id',
    });
    const ROWS = {
      method: 'POST',
      path: '/v2/rows',
      repeat: 'safe',
      gated: false,
      sends: body<object>(),
      answer: { member: 'contacts', row: () => row },
    } as const;
    /** Collects each attempt's rows separately, so a retried page is seen to start over. */
    const attempts: unknown[][] = [];
    const receive = () => {
      const rows: unknown[] = [];
      attempts.push(rows);
      return { row: (r: unknown) => rows.push(r), end: (nextCursor: string | null) => ({ rows, nextCursor }) };
    };
    beforeEach(() => {
      attempts.length = 0;
    });

    it('hands over every row and the cursor; a retried page starts afresh', async () => {
      pool().intercept({ path: '/v2/rows', method: 'POST' }).reply(503, 'busy');
      const body = {
        data: { contacts: [{ id: 'a', x: [1, { y: '}' }] }, { id: 'b' }] },
        pagination: { nextCursor: 'n1' },
      };
      pool()
        .intercept({ path: '/v2/rows', method: 'POST' })
        .reply(200, JSON.stringify(body, null, 2));
      const page = await client().call(ROWS, { body: {}, receive: receive });
      expect(page).toEqual({ rows: body.data.contacts, nextCursor: 'n1' });
      expect(attempts).toHaveLength(1); // the 503 never reached the receiver
    });

    it('names the row that breaks the contract, and does not retry it', async () => {
      pool()
        .intercept({ path: '/v2/rows', method: 'POST' })
        .reply(200, { data: { contacts: [{ id: 'a' }, { id: 7 }] }, pagination: { nextCursor: null } });
      const err = await client()
        .call(ROWS, { body: {}, receive: receive })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ResponseShapeError);
      expect(err.message).toBe(
        'unexpected response from POST /v2/rows: data.contacts.1: expected an object with a string id',
      );
    });

    it('requires the array, the pagination, and JSON', async () => {
      const cases: [unknown, RegExp][] = [
        [{ data: { contacts: {} }, pagination: { nextCursor: null } }, /data\.contacts: /],
        [{ data: { contacts: [] } }, /pagination/],
        ['{"data":{"contacts":[{"id":"a"}', /not JSON/],
        [{ data: { contacts: ['a'] }, pagination: { nextCursor: null } }, /data\.contacts\.0: expected an object/],
      ];
      for (const [body, message] of cases) {
        pool()
          .intercept({ path: '/v2/rows', method: 'POST' })
          .reply(200, typeof body === 'string' ? body : JSON.stringify(body));
        const err = await client()
          .call(ROWS, { body: {}, receive: receive })
          .catch((e) => e);
        expect(err, String(message)).toBeInstanceOf(ResponseShapeError);
        expect(err.message).toMatch(message);
      }
    });

    it('a failure of the reading itself is not retried as a network error', async () => {
      pool()
        .intercept({ path: '/v2/rows', method: 'POST' })
        .reply(200, { data: { contacts: [{ id: 'a' }] }, pagination: { nextCursor: null } });
      const broken = () => ({
        row: () => {
          throw new TypeError('receiver bug');
        },
        end: () => null,
      });
      const err = await client()
        .call(ROWS, { body: {}, receive: broken })
        .catch((e) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(err.message).toBe('receiver bug');
      expect(mock.clock.sleeps).toEqual([]);
      pool()
        .intercept({ path: '/v2/rows', method: 'POST' })
        .reply(200, '{"bad\\q":1,"data":{"contacts":[]},"pagination":{"nextCursor":null}}');
      const shape = await client()
        .call(ROWS, { body: {}, receive: receive })
        .catch((e) => e);
      expect(shape).toBeInstanceOf(ResponseShapeError);
      expect(shape.message).toMatch(/not JSON/);
      expect(mock.clock.sleeps).toEqual([]);
    });

    it('characters cut between two chunks of the answer arrive whole', async () => {
      const rows = Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, name: 'Zoë Ångström 😀 名前'.repeat(i % 7) }));
      const bytes = Buffer.from(JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: null } }));
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
        // 7-byte writes, flushed one by one, so multi-byte characters straddle chunks.
        let at = 0;
        const next = () =>
          at >= bytes.length ? res.end() : res.write(bytes.subarray(at, (at += 7)), () => setImmediate(next));
        next();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const real = new Agent();
      try {
        const { port } = server.address() as AddressInfo;
        const http = new HttpClient({
          baseUrl: `http://127.0.0.1:${port}`,
          apiKey: KEY,
          dispatcher: real,
          limiter: new RateLimiter({ ratePerSecond: 1000, burst: 10, clock: mock.clock }),
          clock: mock.clock,
          logger: silentLogger,
          maxAttempts: 1,
          timeoutMs: 5000,
        });
        expect(await http.call(ROWS, { body: {}, receive: receive })).toEqual({ rows, nextCursor: null });
      } finally {
        await real.close();
        server.close();
      }
    });

    it('maps error answers like any request', async () => {
      pool()
        .intercept({ path: '/v2/rows', method: 'POST' })
        .reply(400, { error: { code: 'invalid_cursor', message: 'bad cursor' } });
      const err = await client()
        .call(ROWS, { body: {}, receive: receive })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect([err.code, attempts.length]).toEqual(['invalid_cursor', 0]);
    });
  });
});
