import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';

// In-process runs against undici's MockAgent: the server behaviours the emulator does not show.
const BASE = 'https://api.test';
let agent: MockAgent;
let env: Record<string, string>;
let dir: string;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = tempConfigDir();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir };
});
afterEach(() => agent.close());

/** A run's summary document: --json's on stdout when the rows go to --out, else --summary-json's file (stdout holds the rows). */

describe('export runner (in-process, MockAgent)', () => {
  it('custom events --full without --since keeps the saved window\'s start, and takes a new --until', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    agent
      .get(BASE)
      .intercept({ path: '/v2/exports/custom-events', method: 'POST', body: (b) => (bodies.push(JSON.parse(b)), true) })
      .reply(200, { data: { events: [] }, pagination: { nextCursor: null } })
      .persist();
    const events = (args: string[]) => cnvInProcess(['export', 'custom-events', '--state-key', 'win', '-o', 'ndjson', ...args], { env, dispatcher: agent });
    expect((await events(['--since', '2025-01-01', '--until', '2025-02-01'])).exitCode).toBe(0);
    expect((await events(['--full', '--until', '2025-03-01'])).exitCode).toBe(0);
    expect((await events(['--full'])).exitCode).toBe(0);
    expect(bodies.map((b) => b.occurredAt)).toEqual([
      { start: '2025-01-01T00:00:00.000Z', end: '2025-02-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
    ]);
    const before = await events(['--full', '--until', '2024-12-01']);
    expect([before.exitCode, before.stderr]).toEqual([2, expect.stringMatching(/--until: must not be before the window's start \(2025-01-01T00:00:00.000Z\)/)]);
  });
});
