import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/campaigns/get.js';
import { ENDPOINTS } from '../../src/endpoints/endpoints.js';
import { cnvInProcess } from '../helpers/cli.js';
import { FakeApi, fakeHttp, ok, useFakeApi } from '../helpers/fake-api.js';
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

describe('the one fake server under an in-process run and a client of its own', () => {
  const served = useFakeApi();
  const http = fakeHttp('sk_live_mock_0123456789');

  it('useFakeApi: a run sends through the server; verify() names what no stub answered', async () => {
    served.api.on('GET', `/v2/campaigns/${ID}`, ok({ campaign: CAMPAIGN }));
    const res = await cnvInProcess(['campaigns', 'get', ID, '--json', '--max-retries', '0'], {
      env: served.env,
      dispatcher: served.dispatcher,
    });
    expect(JSON.parse(res.stdout)).toMatchObject({ id: ID });
    served.api.verify();
    await cnvInProcess(['campaigns', 'get', 'b1000000-0000-4000-8000-000000000009', '--max-retries', '0'], {
      env: served.env,
      dispatcher: served.dispatcher,
    });
    expect(() => served.api.verify()).toThrow('no stub answers GET /v2/campaigns/b1000000-0000-4000-8000-000000000009');
  });

  it('fakeHttp: a client on the same server, its requests recorded', async () => {
    http.api.on('GET', `/v2/campaigns/${ID}`, ok({ campaign: CAMPAIGN }));
    const campaign = await http.client().call(ENDPOINTS.getCampaign, { params: { campaignId: ID } });
    expect(campaign).toMatchObject({ id: ID });
    expect(http.api.requests.map((r) => [r.method, r.path])).toEqual([['GET', `/v2/campaigns/${ID}`]]);
    http.api.verify();
  });
});
