import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CliError } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { firstRequestAllowed, sendFirst } from '../../src/http/first-request.js';
import { silentLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { FakeClock } from '../helpers/fake-clock.js';

// A process's first request goes through node:http (src/http/first-request.ts), every other one
// through undici. Whatever the server does, the client must come to the same end either way:
// the same data, the same error (class, code, message, exit code), the same attempts.
const KEY = 'sk_live_first_CANARY0123456789';
let origin: string;
const sockets = new Set<Socket>();
const served = new Map<string, number>();

/** Each path is one behaviour of the server; `n` counts the requests to that path (1 = the first). */
const behaviours: Record<string, (req: IncomingMessage, res: ServerResponse, n: number) => void> = {
  '/v2/ok': (_req, res) => json(res, 200, { data: { ok: true, echo: 'caf\u00e9 \u{1f600}' } }),
  '/v2/headers': (_req, res) => {
    res.setHeader('x-twice', ['one', 'two']);
    json(res, 200, { data: { ok: true } });
  },
  '/v2/missing': (_req, res) =>
    json(res, 404, { error: { code: 'not_found', message: `no such thing for key ${KEY}` } }),
  '/v2/flaky': (_req, res, n) =>
    n === 1
      ? json(res, 503, { error: { code: 'unavailable', message: 'later' } })
      : json(res, 200, { data: { ok: true } }),
  '/v2/always-503': (_req, res) => json(res, 503, { error: { code: 'unavailable', message: 'later' } }),
  '/v2/silent': () => {},
  '/v2/cut': (_req, res, n) => {
    if (n > 1) return json(res, 200, { data: { ok: true } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"data":{"ok":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  '/v2/cut-always': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"data":{"ok":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  '/v2/slow-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":');
  },
  '/v2/html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>proxy login</html>');
  },
  '/v2/echo-body': (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () =>
      json(res, 200, {
        data: { ok: true, body, length: req.headers['content-length'] ?? null, key: req.headers['x-api-key'] === KEY },
      }),
    );
  },
};

function json(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://x');
  const path = url.pathname;
  const key = `${url.searchParams.get('run')}${path}`;
  served.set(key, (served.get(key) ?? 0) + 1);
  behaviours[path](req, res, served.get(key)!);
});
server.on('connection', (s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((done) => server.close(done));
});

let runs = 0;
/** One request by a fresh client; its first attempt through node:http (`first`) or undici; what it came to. */
async function outcome(
  first: boolean,
  spec: {
    method?: 'GET' | 'POST';
    path: string;
    body?: unknown;
    idempotency?: 'safe' | 'unsafe';
    raw?: boolean;
    base?: string;
    attempts?: number;
  },
) {
  const agent = new Agent();
  const run = `run${++runs}`;
  const client = new HttpClient({
    baseUrl: spec.base ?? origin,
    apiKey: KEY,
    dispatcher: agent,
    firstRequest: first ? sendFirst : undefined,
    limiter: new RateLimiter({ ratePerSecond: 1000, burst: 10, clock: new FakeClock() }),
    clock: new FakeClock(),
    logger: silentLogger,
    maxAttempts: spec.attempts ?? 3,
    timeoutMs: 300,
    random: () => 0,
    userAgent: 'cnv-test',
  });
  // The run's name in the query: the server counts each run's requests by it.
  const common = {
    method: spec.method ?? 'GET',
    path: spec.path,
    body: spec.body,
    idempotency: spec.idempotency ?? 'safe',
    query: { run },
  } as const;
  try {
    const res = spec.raw
      ? await client.requestRaw(common)
      : await client.request({ ...common, data: z.looseObject({ ok: z.boolean() }) });
    return { value: res, requests: servedFor(run, spec.path) };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return {
      error: {
        name: err.constructor.name,
        code: err.code,
        exitCode: err.exitCode,
        message: err.message,
        hint: err.hint,
      },
      requests: servedFor(run, spec.path),
    };
  } finally {
    await agent.close();
  }
}

const servedFor = (run: string, path: string) => served.get(`${run}${path}`) ?? 0;

describe('the first request through node:http comes to what undici comes to', () => {
  it('is used only where undici is not needed from the start: no proxy in the environment', () => {
    expect(firstRequestAllowed({})).toBe(true);
    expect(firstRequestAllowed({ NO_PROXY: '*' })).toBe(true);
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
      expect(firstRequestAllowed({ [name]: 'http://proxy:3128' }), name).toBe(false);
  });

  const cases: Array<[string, Parameters<typeof outcome>[1]]> = [
    ['a 200 answer, UTF-8 kept', { path: '/v2/ok' }],
    ['a header sent twice, as an array', { path: '/v2/headers', raw: true }],
    [
      'a JSON body with its length, and the key',
      { method: 'POST', path: '/v2/echo-body', body: { name: 'Zo\u00eb', n: 1 } },
    ],
    ['a 404 with the key echoed (masked)', { path: '/v2/missing' }],
    ['a 503, then 200: retried', { path: '/v2/flaky' }],
    ['503 every time: retries used up', { path: '/v2/always-503' }],
    [
      '503 to a request that is not safe to repeat: not retried',
      { method: 'POST', path: '/v2/always-503', idempotency: 'unsafe' },
    ],
    ['no answer within the time limit', { path: '/v2/silent' }],
    ['an answer cut mid-body, then whole: retried', { path: '/v2/cut' }],
    ['an answer cut mid-body every time', { path: '/v2/cut-always' }],
    ['a body that stops coming within the time limit', { path: '/v2/slow-body' }],
    ['an HTML page', { path: '/v2/html' }],
    ['a refused connection', { path: '/v2/ok', base: 'http://127.0.0.1:9' }],
  ];
  for (const [name, spec] of cases) {
    it(name, async () => {
      const viaNode = await outcome(true, spec);
      const viaUndici = await outcome(false, spec);
      const comparable = (o: Awaited<ReturnType<typeof outcome>>) => {
        if (!o.value) return o;
        // The server's own headers differ by transport (keep-alive: connection, keep-alive); the rest must not.
        const { headers, ...rest } = o.value as { headers?: Record<string, unknown> };
        return {
          ...o,
          value: {
            ...rest,
            ...(headers ? { headers: { 'x-twice': headers['x-twice'], 'content-type': headers['content-type'] } } : {}),
          },
        };
      };
      expect(comparable(viaNode)).toEqual(comparable(viaUndici));
    });
  }

  // One attempt only: the failure of node:http itself, not undici's on a retry. The wording of a
  // network error is the transport's (`aborted` for `other side closed`); what it leads to is not.
  const once: Array<[string, Parameters<typeof outcome>[1]]> = [
    ['no answer within the time limit', { path: '/v2/silent' }],
    ['an answer cut mid-body', { path: '/v2/cut-always' }],
    ['a body that stops coming within the time limit', { path: '/v2/slow-body' }],
    ['a refused connection', { path: '/v2/ok', base: 'http://127.0.0.1:9' }],
  ];
  for (const [name, spec] of once) {
    it(`${name}, at the first attempt: the same error class, code, exit code and hint`, async () => {
      const pick = ({ error, requests }: Awaited<ReturnType<typeof outcome>>) => ({
        name: error?.name,
        code: error?.code,
        exitCode: error?.exitCode,
        hint: error?.hint,
        requests,
      });
      const viaNode = await outcome(true, { ...spec, attempts: 1 });
      expect(viaNode.error?.message).toMatch(/^GET \/v2\/\S+ failed: .+ \[(ETIMEDOUT|ECONNRESET|ECONNREFUSED)\]$/);
      expect(pick(viaNode)).toEqual(pick(await outcome(false, { ...spec, attempts: 1 })));
    });
  }

  it('aborting the signal (Ctrl-C) rejects with its reason, as undici does', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const pending = sendFirst(new URL(`${origin}/v2/silent`), {
      method: 'GET',
      headers: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 30);
    await expect(pending).rejects.toBe(reason);
  });
});
