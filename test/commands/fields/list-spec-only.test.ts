import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';

// A server that is only the spec (undici's MockAgent): the CLI must send only the parameters
// the spec names and cope with what the spec leaves open.
const BASE = 'https://api.test';
const CO = 'c0000000-0000-4000-8000-000000000001';
const OTHER_CO = 'c0000000-0000-4000-8000-000000000002';
let agent: MockAgent;
let env: Record<string, string>;
let dir: string;
let paths: string[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = tempConfigDir();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir };
  paths = [];
});
afterEach(() => agent.close());

const run = (args: string[]) => cnvInProcess(args, { env, dispatcher: agent });
const field = (key: string, dataType: string, customObjectId?: string) => ({ key, label: key, objectType: 'CUSTOM_OBJECT', dataType, ...(customObjectId ? { customObjectId } : {}) });
/** Answers GET /v2/fields (any query) with these pages in turn, recording each path asked. */
function fieldPages(pages: unknown[][]) {
  pages.forEach((fields, i) => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply((req) => {
        paths.push(req.path);
        return { statusCode: 200, data: { data: { fields }, pagination: { nextCursor: i < pages.length - 1 ? `page-${i + 1}` : null } } };
      });
  });
}
/** Answers the record batch, keeping each body sent. */

describe('fields list --custom-object-id against a server that is only the spec', () => {
  it('sends objectType only and keeps the rows of that custom object', async () => {
    fieldPages([[field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)]]);
    const res = await run(['fields', 'list', '--custom-object-id', CO, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect([...new URL(paths[0], BASE).searchParams.entries()]).toEqual([['objectType', 'CUSTOM_OBJECT']]);
    expect(JSON.parse(res.stdout).map((f: { key: string }) => f.key)).toEqual(['seats']);
  });
});
