import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/campaigns/get.js';
import { FakeApi, ok } from '../helpers/fake-api.js';
import { fakeContext } from '../helpers/fake-context.js';

// The helper of the run-alone command tests (test/commands/<noun>/<verb>.test.ts) fails a test
// that sends what no stub answers, or leaves a stub unused: a stub list is the test's claim of
// exactly what the command sends.
const ID = 'b1000000-0000-4000-8000-000000000001';
const CAMPAIGN = {
  id: ID,
  name: 'Spring',
  type: { id: 't1', name: 'Webinar', systemType: 'CUSTOM' },
  memberCount: 3,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

describe('fakeContext and FakeApi', () => {
  it('a request no stub answers: the run fails, and verify() names the request', async () => {
    const f = fakeContext({ globals: { maxRetries: 0 } });
    f.api.on('GET', '/v2/campaigns/other', ok({ campaign: CAMPAIGN }));
    await expect(run(f.ctx, { args: [ID], opts: {} })).rejects.toThrow();
    expect(() => f.api.verify()).toThrow(
      `fake API: no stub answers GET /v2/campaigns/${ID}; stub not used: GET /v2/campaigns/other`,
    );
    await f.api.close();
  });

  it('a stub whose answers were not all used: verify() names it', async () => {
    const api = new FakeApi().on('GET', `/v2/campaigns/${ID}`, ok({ campaign: CAMPAIGN }), ok({ campaign: CAMPAIGN }));
    const f = fakeContext({ api });
    expect(await run(f.ctx, { args: [ID], opts: {} })).toMatchObject({ kind: 'record', data: { id: ID } });
    expect(() => api.verify()).toThrow(`fake API: stub not used: GET /v2/campaigns/${ID}`);
    await api.close();
  });

  it('its environment is its own: a fresh config directory, none of the test process variables', () => {
    const f = fakeContext();
    expect(Object.keys(f.ctx.env)).toEqual(['CNV_CONFIG_DIR']);
    expect(f.ctx.env.CNV_CONFIG_DIR).not.toBe(process.env.CNV_CONFIG_DIR);
  });
});
