import { Dispatcher, MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { silentLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { tempConfigDir } from './cli.js';
import { FakeClock } from './fake-clock.js';

// The one fake server of the tests: undici's MockAgent behind FakeApi (stubs, the requests sent,
// verify()), for a fake context (useFakeContext), an in-process run (useFakeApi) or an
// HttpClient of its own (fakeHttp).

/** The origin the fake API answers at (the fake context's base URL). */
export const FAKE_ORIGIN = 'https://api.fake.test';

/** The base URL of the API that in-process runs (useFakeApi) and clients (fakeHttp) send to. */
export const MOCK_API = 'https://api.test';

/** What a stub answers: a status, a JSON body (a string is sent as it is), headers. */
export interface StubReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request the fake API answered, as it was sent. */
export interface SentRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** The JSON body, parsed (undefined without one). */
  body: unknown;
  headers: Record<string, string>;
}

/** A success answer in the API's envelope: `{ data }`, and `pagination.nextCursor` for a page. */
export const ok = (data: unknown, nextCursor?: string | null): StubReply => ({
  status: 200,
  body: nextCursor === undefined ? { data } : { data, pagination: { nextCursor } },
});

/** An error answer in the API's envelope. */
export const apiError = (
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): StubReply => ({
  status,
  body: { error: { code, message } },
  ...(headers ? { headers } : {}),
});

/**
 * The API as a test registers it, gh's httpmock over undici's MockAgent: each stub is a method
 * and a path (its query included, in any order) with the answers it gives, one per request, in
 * order. A request no stub answers is noted (the client sees a network error) and `verify()`
 * fails the test naming it, as it does for a stub whose answers were not all used.
 */
export class FakeApi {
  /** The dispatcher an HttpClient sends through. */
  readonly dispatcher: Dispatcher;
  /** What was answered, in order. */
  readonly requests: SentRequest[] = [];
  /** undici's MockAgent underneath, for an interceptor a stub cannot say (a body matched, a reply made per request). */
  readonly agent = new MockAgent();
  private readonly unregistered: string[] = [];

  constructor(readonly origin = FAKE_ORIGIN) {
    this.agent.disableNetConnect();
    this.dispatcher = new NotingUnmatched(this.agent, (request) => this.unregistered.push(request));
  }

  /** The MockAgent's pool of the origin: `pool().intercept(...)`. */
  pool(): ReturnType<MockAgent['get']> {
    return this.agent.get(this.origin);
  }

  /** `method path` answers with `replies`, one per request (one reply: once). */
  on(method: string, path: string, ...replies: StubReply[]): this {
    for (const reply of replies) {
      this.pool()
        .intercept({ method, path })
        .reply((req) => {
          this.requests.push({
            method: req.method,
            path: req.path,
            body: parseBody(req.body),
            headers: headersOf(req.headers),
          });
          return {
            statusCode: reply.status,
            data: typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {}),
            responseOptions: { headers: { 'content-type': 'application/json', ...reply.headers } },
          };
        });
    }
    return this;
  }

  /** `method path` fails once the request was sent (a connection dropped before the answer). */
  dropped(method: string, path: string): this {
    this.pool()
      .intercept({ method, path })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    return this;
  }

  /** Fails when a request matched no stub, or a stub was not used as often as registered. */
  verify(): void {
    const times = new Map<string, number>();
    for (const request of this.unregistered) times.set(request, (times.get(request) ?? 0) + 1);
    const problems = [
      ...[...times].map(([request, n]) => `no stub answers ${request}${n > 1 ? ` (sent ${n} times)` : ''}`),
      ...this.agent.pendingInterceptors().map((i) => `stub not used: ${i.method} ${i.path}`),
    ];
    if (problems.length > 0) throw new Error(`fake API: ${problems.join('; ')}`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** One test's fake API for an in-process run: the server, a config directory of its own, and the env of a run against it. */
export interface FakeApiRun {
  readonly api: FakeApi;
  /** What a run sends through (`api.dispatcher`: a request no stub answers is noted for verify()). */
  readonly dispatcher: Dispatcher;
  /** The server's MockAgent (`api.agent`), for interceptors a stub cannot say. */
  readonly agent: MockAgent;
  readonly dir: string;
  readonly env: Record<string, string>;
}

/**
 * For each test of the file: a new FakeApi at `MOCK_API` that lets nothing reach the network, a
 * new config directory, and the env of a cnv run against them; the server is closed after each.
 * The returned object always names the current test's. `contactFields`: GET /v2/fields of
 * CONTACT answers no fields, as often as asked (an NDJSON contacts export reads them to record
 * their labels).
 */
export function useFakeApi(opts: { contactFields?: boolean } = {}): FakeApiRun {
  let current: FakeApiRun | undefined;
  beforeEach(() => {
    const api = new FakeApi(MOCK_API);
    if (opts.contactFields)
      api
        .pool()
        .intercept({ path: (p) => p.startsWith('/v2/fields?objectType=CONTACT'), method: 'GET' })
        .reply(200, { data: { fields: [] }, pagination: { nextCursor: null } })
        .persist();
    const dir = tempConfigDir();
    const env = { CNV_BASE_URL: MOCK_API, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir };
    current = { api, dispatcher: api.dispatcher, agent: api.agent, dir, env };
  });
  afterEach(() => current?.api.close());
  return {
    get api() {
      return current!.api;
    },
    get dispatcher() {
      return current!.dispatcher;
    },
    get agent() {
      return current!.agent;
    },
    get dir() {
      return current!.dir;
    },
    get env() {
      return current!.env;
    },
  };
}

/**
 * For the tests of a describe block: a FakeApi at `MOCK_API` and a FakeClock, both new for each
 * test, and HttpClients on them (a fast limiter, 4 attempts, no jitter: backoffs of 250, 500...
 * ms on the fake clock), `more` over those.
 */
export function fakeHttp(apiKey: string) {
  let api: FakeApi;
  let clock: FakeClock;
  beforeEach(() => {
    api = new FakeApi(MOCK_API);
    clock = new FakeClock();
  });
  afterEach(() => api.close());
  return {
    get api() {
      return api;
    },
    get agent() {
      return api.agent;
    },
    get clock() {
      return clock;
    },
    pool: () => api.pool(),
    client: (more: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
      new HttpClient({
        baseUrl: MOCK_API,
        apiKey,
        dispatcher: api.dispatcher,
        limiter: new RateLimiter({ ratePerSecond: 1000, burst: 10, clock }),
        clock,
        logger: silentLogger,
        maxAttempts: 4,
        timeoutMs: 5000,
        random: () => 0.5,
        ...more,
      }),
  };
}

/**
 * MockAgent's dispatcher, noting each request that no stub answers: undici hands that failure
 * to the request's handler (onError), where a client would take it for a network error.
 */
class NotingUnmatched extends Dispatcher {
  constructor(
    private readonly inner: MockAgent,
    private readonly note: (request: string) => void,
  ) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const noting = new Proxy(handler, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target);
        if (prop === 'onError') {
          return (err: Error & { code?: string }) => {
            if (err?.code === 'UND_MOCK_ERR_MOCK_NOT_MATCHED') this.note(`${opts.method} ${opts.path}`);
            return (value as (e: Error) => void).call(target, err);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return this.inner.dispatch(opts, noting);
  }

  override async close(): Promise<void> {
    await this.inner.close();
  }

  override async destroy(): Promise<void> {
    await this.inner.destroy();
  }
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function headersOf(headers: unknown): Record<string, string> {
  if (!headers || typeof headers !== 'object') return {};
  return Object.fromEntries(
    Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
}

/** A custom-object field definition as List fields answers it. */
export const customObjectField = (key: string, dataType: string, customObjectId?: string) => ({
  key,
  label: key,
  objectType: 'CUSTOM_OBJECT',
  dataType,
  ...(customObjectId ? { customObjectId } : {}),
});

/** Answers GET /v2/fields (any query) with these pages in turn, recording in `paths` each path asked. */
function answerFieldPages(agent: MockAgent, pages: unknown[][], paths: string[]): void {
  pages.forEach((fields, i) => {
    agent
      .get(MOCK_API)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply((req) => {
        paths.push(req.path);
        return {
          statusCode: 200,
          data: { data: { fields }, pagination: { nextCursor: i < pages.length - 1 ? `page-${i + 1}` : null } },
        };
      });
  });
}

/** For each test: the paths of the field lists asked (`paths`), and `answer(pages)`, which serves those pages in turn. */
export function useFieldPages(api: FakeApiRun): { readonly paths: string[]; answer(pages: unknown[][]): void } {
  let paths: string[] = [];
  beforeEach(() => {
    paths = [];
  });
  return {
    get paths() {
      return paths;
    },
    answer: (pages) => answerFieldPages(api.agent, pages, paths),
  };
}

/** A contact row of an export page, its `updatedAt` told apart by the length of its id. */
export const exportContact = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  email: `${id}@example.com`,
  updatedAt: `2025-01-01T00:00:0${id.length}Z`,
  ...extra,
});

/** Answers POST /v2/exports/contacts sent with `cursor` (undefined: the first call) with these rows and the next cursor, `times` times. */
export function answerContactsPage(
  agent: MockAgent,
  cursor: string | undefined,
  rows: unknown[],
  next: string | null,
  times = 1,
): void {
  agent
    .get(MOCK_API)
    .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === cursor })
    .reply(200, { data: { contacts: rows }, pagination: { nextCursor: next } })
    .times(times);
}
