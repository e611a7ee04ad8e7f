import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/campaigns/get.js';
import { FIXTURE_CAMPAIGNS as CA } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `campaigns get`'s run alone.
const ID = 'b1000000-0000-4000-8000-000000000001';
const CAMPAIGN = {
  id: ID,
  name: 'Spring webinar',
  description: 'Q2',
  memberCount: 12,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  type: {
    id: 't1',
    name: 'Webinar',
    systemType: 'CUSTOM',
    statuses: [
      { id: 's1', name: 'Registered', isSuccess: false },
      { id: 's2', name: 'Attended', isSuccess: true },
    ],
  },
};

const f = useFakeContext();

describe('campaigns get: run', () => {
  it('GET /v2/campaigns/ID: the campaign, its statuses and members the API added kept', async () => {
    f.api.on('GET', `/v2/campaigns/${ID}`, ok({ campaign: { ...CAMPAIGN, newMember: 1 } }));
    expect(await run(f.ctx, { args: [ID], opts: {} })).toEqual({ kind: 'record', data: { ...CAMPAIGN, newMember: 1 } });
  });

  it('404 campaign_not_found: exit 5', async () => {
    f.api.on('GET', `/v2/campaigns/${ID}`, apiError(404, 'campaign_not_found', 'no campaign with that id'));
    await expect(run(f.ctx, { args: [ID], opts: {} })).rejects.toMatchObject({
      exitCode: 5,
      code: 'campaign_not_found',
    });
  });

  it("an answer without the campaign's required members is invalid_response (exit 3), not a record with holes", async () => {
    f.api.on('GET', `/v2/campaigns/${ID}`, ok({ campaign: { id: ID, name: 'no type' } }));
    await expect(run(f.ctx, { args: [ID], opts: {} })).rejects.toMatchObject({ exitCode: 3, code: 'invalid_response' });
  });

  it('a 429 waits its Retry-After (on the fake clock), then the campaign', async () => {
    f.api.on(
      'GET',
      `/v2/campaigns/${ID}`,
      apiError(429, 'rate_limited', 'slow down', { 'retry-after': '2' }),
      ok({ campaign: CAMPAIGN }),
    );
    expect(await run(f.ctx, { args: [ID], opts: {} })).toMatchObject({ data: { id: ID } });
    expect(Math.max(...f.clock.sleeps)).toBeGreaterThanOrEqual(2000);
  });
});

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);

describe('cnv campaigns (in-process)', () => {
  reseedBeforeEach(fx);

  it('get: statuses in progression order and the description; archived exits 5', async () => {
    const res = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id], { env: fx.env });
    const campaign = json(res.stdout);
    expect(campaign.description).toBe(CA.springWebinar.description);
    expect(campaign.type.statuses.map((s: { name: string; isSuccess: boolean }) => `${s.name}:${s.isSuccess}`)).toEqual(
      ['Invited:false', 'Registered:false', 'Attended:true', 'No-show:false'],
    );
    await fx.admin('POST', `/_emulator/campaigns/${CA.springWebinar.id}/archive`);
    const archived = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id], { env: fx.env });
    expect(archived.exitCode).toBe(5);
    expect(archived.stderr).toMatch(/campaign_not_found/);
  });

  it('get on a terminal table keeps the status order', async () => {
    const res = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id, '-o', 'table', '--no-color'], {
      env: fx.env,
    });
    const order = ['Invited', 'Registered', 'Attended', 'No-show'].map((name) => res.stdout.indexOf(name));
    expect(order.every((pos, i) => pos > 0 && (i === 0 || pos > order[i - 1]))).toBe(true);
    expect(res.stdout).toContain(CA.springWebinar.description);
  });
});
