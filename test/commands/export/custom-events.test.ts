import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { MOCK_API, useFakeApi } from '../../helpers/fake-api.js';

// In-process runs against undici's MockAgent: the server behaviours the emulator does not show.
const BASE = MOCK_API;
const api = useFakeApi();

describe('export runner (in-process, MockAgent)', () => {
  it("custom events --full without --since keeps the saved window's start, and takes a new --until", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/custom-events', method: 'POST', body: (b) => (bodies.push(JSON.parse(b)), true) })
      .reply(200, { data: { events: [] }, pagination: { nextCursor: null } })
      .persist();
    const events = (args: string[]) =>
      cnvInProcess(['export', 'custom-events', '--state-key', 'win', '-o', 'ndjson', ...args], {
        env: api.env,
        dispatcher: api.dispatcher,
      });
    expect((await events(['--since', '2025-01-01', '--until', '2025-02-01'])).exitCode).toBe(0);
    expect((await events(['--full', '--until', '2025-03-01'])).exitCode).toBe(0);
    expect((await events(['--full'])).exitCode).toBe(0);
    expect(bodies.map((b) => b.occurredAt)).toEqual([
      { start: '2025-01-01T00:00:00.000Z', end: '2025-02-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
      { start: '2025-01-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
    ]);
    const before = await events(['--full', '--until', '2024-12-01']);
    expect([before.exitCode, before.stderr]).toEqual([
      2,
      expect.stringMatching(/--until: must not be before the window's start \(2025-01-01T00:00:00.000Z\)/),
    ]);
  });
});
