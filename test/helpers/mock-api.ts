import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { tempConfigDir } from './cli.js';

/** The base URL of the API that in-process runs over a MockAgent send to. */
export const MOCK_API = 'https://api.test';

/** One test's mocked API: the agent, a config directory of its own, and the env of a run against it. */
export interface MockApiRun {
  readonly agent: MockAgent;
  readonly dir: string;
  readonly env: Record<string, string>;
}

/**
 * For each test of the file: a new MockAgent that lets nothing reach the network, a new config
 * directory, and the env of a cnv run against `MOCK_API` with them; the agent is closed after
 * each. The returned object always names the current test's. `contactFields`: GET /v2/fields of
 * CONTACT answers no fields.
 */
export function useMockApi(opts: { contactFields?: boolean } = {}): MockApiRun {
  let current: MockApiRun | undefined;
  beforeEach(() => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    // `contactFields`: no CONTACT fields, as often as asked (an NDJSON contacts export reads them to record their labels).
    if (opts.contactFields)
      agent
        .get(MOCK_API)
        .intercept({ path: (p) => p.startsWith('/v2/fields?objectType=CONTACT'), method: 'GET' })
        .reply(200, { data: { fields: [] }, pagination: { nextCursor: null } })
        .persist();
    const dir = tempConfigDir();
    current = {
      agent,
      dir,
      env: { CNV_BASE_URL: MOCK_API, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir },
    };
  });
  afterEach(() => current?.agent.close());
  return {
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
export function useFieldPages(api: MockApiRun): { readonly paths: string[]; answer(pages: unknown[][]): void } {
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
