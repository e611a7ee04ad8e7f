import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';

// Tuning the process is the launcher's (bin/cnv.js: applyRuntime, docs/architecture.md): a run
// in-process changes no V8 flag; the export's heap hold reaches V8 only through the hook the
// launcher hands to run(). (No undici prototype either: test/e2e/runtime.test.ts.) node:v8 is mocked: the test process keeps its flags.
const v8 = vi.hoisted(() => ({ setFlagsFromString: vi.fn() }));
vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: v8.setFlagsFromString,
}));

const BASE = 'https://api.test';
let agent: MockAgent;
let env: Record<string, string>;

beforeEach(() => {
  v8.setFlagsFromString.mockClear();
  agent = new MockAgent();
  agent.disableNetConnect();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: tempConfigDir() };
  const pages = agent.get(BASE);
  pages
    .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === undefined })
    .reply(200, { data: { contacts: [{ id: 'a' }, { id: 'b' }] }, pagination: { nextCursor: 'c1' } });
  pages
    .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' })
    .reply(200, { data: { contacts: [{ id: 'c' }] }, pagination: { nextCursor: null } });
});
afterEach(() => agent.close());

describe('run-time tuning comes only from the launcher', () => {
  it('an export run in-process sets no V8 flag', async () => {
    const res = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson'], { env, dispatcher: agent });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(3);
    expect(v8.setFlagsFromString).not.toHaveBeenCalled();
  });

  it("the launcher's heap hold is taken when the export starts and checked after each page", async () => {
    const checks: string[] = [];
    const tuning = { holdHeap: () => (checks.push('hold'), () => void checks.push('page')) };
    const res = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson'], {
      env,
      dispatcher: agent,
      tuning,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(checks).toEqual(['hold', 'page', 'page']);
  });

  it('commands that are not exports never ask for it', async () => {
    const holdHeap = vi.fn(() => () => {});
    const res = await cnvInProcess(['version'], { env, tuning: { holdHeap } });
    expect(res.exitCode).toBe(0);
    expect(holdHeap).not.toHaveBeenCalled();
  });
});
