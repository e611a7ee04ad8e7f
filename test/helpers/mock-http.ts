import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { silentLogger } from '../../src/http/logger.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';
import { FakeClock } from './fake-clock.js';

/** The base URL of the mocked API. */
export const MOCK_ORIGIN = 'https://api.test';

/**
 * For the tests of a describe block: a MockAgent that lets nothing reach the network and a
 * FakeClock, both new for each test, and HttpClients on them (a fast limiter, 4 attempts, no
 * jitter: backoffs of 250, 500... ms on the fake clock), `more` over those.
 */
export function mockedHttp(apiKey: string) {
  let agent: MockAgent;
  let clock: FakeClock;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    clock = new FakeClock();
  });
  afterEach(() => agent.close());
  return {
    get agent() {
      return agent;
    },
    get clock() {
      return clock;
    },
    pool: () => agent.get(MOCK_ORIGIN),
    client: (more: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
      new HttpClient({
        baseUrl: MOCK_ORIGIN,
        apiKey,
        dispatcher: agent,
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
