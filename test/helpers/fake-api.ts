import { Dispatcher, MockAgent } from 'undici';

/** The origin the fake API answers at (the fake context's base URL). */
export const FAKE_ORIGIN = 'https://api.fake.test';

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
  private readonly agent = new MockAgent();
  private readonly unregistered: string[] = [];

  constructor() {
    this.agent.disableNetConnect();
    this.dispatcher = new NotingUnmatched(this.agent, (request) => this.unregistered.push(request));
  }

  /** `method path` answers with `replies`, one per request (one reply: once). */
  on(method: string, path: string, ...replies: StubReply[]): this {
    for (const reply of replies) {
      this.agent
        .get(FAKE_ORIGIN)
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
    this.agent
      .get(FAKE_ORIGIN)
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
