import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { DEFAULT_CAMPAIGN_LIMIT } from '../../src/emulator/routes/campaigns.js';
import {
  FIXTURE_BASIC_CAMPAIGNS,
  FIXTURE_CAMPAIGN_TYPES as TYPES,
  FIXTURE_CAMPAIGNS as CA,
  FIXTURE_CONTACTS as FX,
} from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(() => emu.close());
beforeEach(async () => {
  await admin(emu, 'POST', '/_emulator/reset');
});

const list = (query = '', key?: string) => call(emu, 'GET', `/v2/campaigns${query}`, { key });
const activeCount = () => [...emu.store.business('acme').campaigns.values()].filter((c) => !c.archived).length;

async function walk(limit?: number): Promise<Array<Record<string, unknown>>> {
  const all: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const res = await list(`?${params}`);
    expect(res.status).toBe(200);
    all.push(...res.json.data.campaigns);
    cursor = res.json.pagination.nextCursor;
  } while (cursor);
  return all;
}

describe('GET /v2/campaigns', () => {
  it('pages with the default limit and an opaque cursor, and lists every active campaign once', async () => {
    const first = await list();
    expect(first.json.data.campaigns).toHaveLength(DEFAULT_CAMPAIGN_LIMIT);
    expect(first.json.pagination.nextCursor).toEqual(expect.any(String));
    const all = await walk();
    expect(all).toHaveLength(activeCount());
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    expect(all.map((c) => c.id)).not.toContain(CA.archived.id);
  });

  it('list items have the list shape: no statuses, no description', async () => {
    const item = (await walk(100)).find((c) => c.id === CA.springWebinar.id);
    expect(item).toEqual({
      id: CA.springWebinar.id,
      name: CA.springWebinar.name,
      type: { id: TYPES.webinar.id, name: 'Webinar', systemType: 'CUSTOM' },
      sfdcCampaignId: CA.springWebinar.sfdcCampaignId,
      memberCount: 1,
      createdAt: CA.springWebinar.createdAt,
      updatedAt: CA.springWebinar.createdAt,
    });
  });

  it('clamps the limit to 1..100 and rejects a non-integer', async () => {
    expect((await list('?limit=0')).json.data.campaigns).toHaveLength(1);
    expect((await list('?limit=-5')).json.data.campaigns).toHaveLength(1);
    expect((await list('?limit=1000')).json.data.campaigns).toHaveLength(100);
    expectError(await list('?limit=ten'), 400, 'invalid_request');
  });

  it('rejects a tampered or foreign cursor with invalid_cursor', async () => {
    const cursor: string = (await list('?limit=2')).json.pagination.nextCursor;
    expectError(await list(`?cursor=${cursor.slice(0, -2)}xx`), 400, 'invalid_cursor');
    expectError(await list('?cursor=garbage'), 400, 'invalid_cursor');
  });

  it('a campaign archived during a walk drops out without shifting the pages', async () => {
    const page1 = await list('?limit=3');
    await admin(emu, 'POST', `/_emulator/campaigns/${page1.json.data.campaigns[1].id}/archive`);
    const page2 = await list(`?limit=3&cursor=${encodeURIComponent(page1.json.pagination.nextCursor)}`);
    const rest = await walk(100);
    expect(rest.map((c) => c.id).indexOf(page2.json.data.campaigns[0].id)).toBe(2);
  });

  it('each business sees its own campaigns', async () => {
    const res = await list('', emu.keys.basic);
    expect(res.json.data.campaigns.map((c: { id: string }) => c.id)).toEqual([FIXTURE_BASIC_CAMPAIGNS.basicLaunch.id]);
    expect(res.json.pagination.nextCursor).toBeNull();
  });
});

describe('GET /v2/campaigns/:id', () => {
  it('has the type statuses in progression order and the description', async () => {
    const res = await call(emu, 'GET', `/v2/campaigns/${CA.springWebinar.id}`);
    expect(res.json.data.campaign).toMatchObject({
      id: CA.springWebinar.id,
      description: CA.springWebinar.description,
      type: { id: TYPES.webinar.id, systemType: 'CUSTOM', statuses: TYPES.webinar.statuses },
    });
    expect(res.json.data.campaign.type.statuses.map((s: { name: string }) => s.name)).toEqual([
      'Invited',
      'Registered',
      'Attended',
      'No-show',
    ]);
  });

  it('unknown, malformed and archived campaigns are 404 campaign_not_found', async () => {
    expectError(
      await call(emu, 'GET', '/v2/campaigns/c4000000-0000-4000-8000-00000000ffff'),
      404,
      'campaign_not_found',
    );
    expectError(await call(emu, 'GET', '/v2/campaigns/nope'), 404, 'campaign_not_found');
    expectError(await call(emu, 'GET', `/v2/campaigns/${CA.archived.id}`), 404, 'campaign_not_found');
    await admin(emu, 'POST', `/_emulator/campaigns/${CA.tradeShow.id}/archive`);
    expectError(await call(emu, 'GET', `/v2/campaigns/${CA.tradeShow.id}`), 404, 'campaign_not_found');
    await admin(emu, 'POST', `/_emulator/campaigns/${CA.tradeShow.id}/unarchive`);
    expect((await call(emu, 'GET', `/v2/campaigns/${CA.tradeShow.id}`)).status).toBe(200);
  });
});

describe('adding contacts to a campaign', () => {
  const state = async (id: string) => (await admin(emu, 'GET', `/_emulator/state/campaigns/${id}`)).json;

  it('adds one contact with the first status of the type; again answers added: false', async () => {
    const res = await call(emu, 'POST', `/v2/campaigns/${CA.tradeShow.id}/contacts`, {
      body: { userId: 'user-grace' },
    });
    expect(res.json).toEqual({ data: { added: true, cnvContactId: FX.grace.id } });
    const again = await call(emu, 'POST', `/v2/campaigns/${CA.tradeShow.id}/contacts`, {
      body: { email: FX.grace.email },
    });
    expect(again.json.data.added).toBe(false);
    expect((await state(CA.tradeShow.id)).members).toEqual([
      { contactId: FX.grace.id, statusId: TYPES.tradeShow.statuses[0].id },
    ]);
  });

  it('single add errors: campaign_not_found (also archived), contact_not_found, missing_identifier', async () => {
    expectError(
      await call(emu, 'POST', `/v2/campaigns/${CA.archived.id}/contacts`, { body: { email: FX.ada.email } }),
      404,
      'campaign_not_found',
    );
    expectError(
      await call(emu, 'POST', `/v2/campaigns/${CA.tradeShow.id}/contacts`, { body: { email: 'ghost@example.com' } }),
      404,
      'contact_not_found',
    );
    expectError(
      await call(emu, 'POST', `/v2/campaigns/${CA.tradeShow.id}/contacts`, { body: {} }),
      400,
      'missing_identifier',
    );
  });

  it('batch: per-item results, 1..1000 bound, gated, campaign_not_found', async () => {
    const path = `/v2/campaigns/${CA.tradeShow.id}/contacts/batch`;
    const res = await call(emu, 'POST', path, {
      body: { contacts: [{ email: FX.ada.email }, { email: 'ghost@example.com' }] },
    });
    expect(res.json.data.results).toEqual([
      { added: true, cnvContactId: FX.ada.id },
      { added: false, error: 'contact_not_found', message: expect.any(String) },
    ]);
    expectError(await call(emu, 'POST', path, { body: { contacts: [] } }), 400, 'invalid_request');
    expectError(
      await call(emu, 'POST', path, { body: { contacts: Array(1001).fill({ email: FX.ada.email }) } }),
      400,
      'invalid_request',
    );
    expectError(
      await call(emu, 'POST', path, { body: { contacts: [{ email: FX.ada.email }] }, key: emu.keys.basic }),
      403,
      'export_not_enabled',
    );
    expectError(
      await call(emu, 'POST', `/v2/campaigns/${CA.archived.id}/contacts/batch`, {
        body: { contacts: [{ email: FX.ada.email }] },
      }),
      404,
      'campaign_not_found',
    );
    expect((await state(CA.tradeShow.id)).members).toHaveLength(1);
  });

  it('the admin archive route answers 404 for an unknown campaign', async () => {
    const res = await admin(emu, 'POST', '/_emulator/campaigns/c4000000-0000-4000-8000-00000000ffff/archive');
    expectError(res, 404, 'campaign_not_found');
  });
});
