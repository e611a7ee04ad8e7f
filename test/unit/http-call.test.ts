import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/endpoints/endpoints.js';
import { ApiError, DryRunStop, NotTheApiError, ResponseShapeError } from '../../src/errors.js';
import { requestOf } from '../../src/http/endpoint.js';
import { MOCK_API, fakeHttp } from '../helpers/fake-api.js';

// `http.call(ENDPOINTS.x, { params, query, body, signal })`: the one typed way an endpoint of the
// table is sent (src/http/client.ts), by its row (src/endpoints/endpoints.ts).
const KEY = 'sk_live_unit_CANARY0123456789';
const CAMPAIGN = {
  id: 'c1',
  name: 'Launch',
  type: { id: 't1', name: 'Webinar', systemType: 'CUSTOM' },
  memberCount: 2,
  createdAt: 't',
  updatedAt: 't',
};

describe('HttpClient.call', () => {
  const mock = fakeHttp(KEY);
  const { client, pool } = mock;

  it('fills each path parameter as one encoded segment and answers with the member of data the row names', async () => {
    pool()
      .intercept({ path: '/v2/forms/a%2Fb%20c%3F', method: 'GET' })
      .reply(200, { data: { form: { id: 'f1', name: 'Signup' }, extra: 1 } });
    const form = await client().call(ENDPOINTS.getForm, { params: { formId: 'a/b c?' } });
    // The row's schema applied: its default (fields: []) and nothing of data around the member.
    expect(form).toEqual({ id: 'f1', name: 'Signup', fields: [] });
  });

  it('refuses a missing or empty path parameter before anything is sent', async () => {
    const http = client();
    for (const params of [{}, { formId: '' }]) {
      const err = await http.call(ENDPOINTS.getForm, { params } as never).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toBe('/v2/forms/{formId}: no value for {formId}');
    }
  });

  it('sends the query given, and a list row answers with its items and the next cursor', async () => {
    pool()
      .intercept({ path: '/v2/campaigns?limit=5', method: 'GET' })
      .reply(200, { data: { campaigns: [CAMPAIGN] }, pagination: { nextCursor: 'n2' } });
    const page = await client().call(ENDPOINTS.listCampaigns, { query: { limit: 5, cursor: undefined } });
    expect(page).toEqual({ items: [CAMPAIGN], nextCursor: 'n2' });
  });

  it('validates the envelope: the member by its schema, pagination on a list, data itself', async () => {
    pool()
      .intercept({ path: '/v2/campaigns/c1', method: 'GET' })
      .reply(200, { data: { campaign: { ...CAMPAIGN, memberCount: 'two' } } });
    const shape = await client()
      .call(ENDPOINTS.getCampaign, { params: { campaignId: 'c1' } })
      .catch((e) => e);
    expect(shape).toBeInstanceOf(ResponseShapeError);
    expect(shape.message).toBe(
      'unexpected response from GET /v2/campaigns/c1: data.campaign.memberCount: Invalid input: expected number, received string',
    );
    pool()
      .intercept({ path: '/v2/campaigns', method: 'GET' })
      .reply(200, { data: { campaigns: [] } });
    expect(
      await client()
        .call(ENDPOINTS.listCampaigns, { query: {} })
        .catch((e) => e),
    ).toBeInstanceOf(ResponseShapeError);
    pool().intercept({ path: '/v2/campaigns/c1', method: 'GET' }).reply(200, { campaign: CAMPAIGN });
    expect(
      await client()
        .call(ENDPOINTS.getCampaign, { params: { campaignId: 'c1' } })
        .catch((e) => e),
    ).toBeInstanceOf(NotTheApiError);
  });

  it('retries by the row: a safe read after a 500, an unsafe trigger never, a keyed event only with its key', async () => {
    const boom = { error: { code: 'internal_error', message: 'boom' } };
    pool().intercept({ path: '/v2/campaigns/c1', method: 'GET' }).reply(500, boom);
    pool()
      .intercept({ path: '/v2/campaigns/c1', method: 'GET' })
      .reply(200, { data: { campaign: CAMPAIGN } });
    expect(await client().call(ENDPOINTS.getCampaign, { params: { campaignId: 'c1' } })).toEqual(CAMPAIGN);

    pool().intercept({ path: '/v2/workflows/w1/trigger', method: 'POST' }).reply(500, boom);
    const unsafe = await client()
      .call(ENDPOINTS.triggerWorkflow, { params: { workflowId: 'w1' }, body: { email: 'a@b.c' } })
      .catch((e) => e);
    expect([unsafe.constructor, unsafe.status, unsafe.hint]).toEqual([
      ApiError,
      500,
      expect.stringMatching(/may have reached the server/),
    ]);

    const tracked = { data: { cnvEventId: 'e', cnvContactId: 'c' } };
    pool().intercept({ path: '/v2/events', method: 'POST' }).reply(500, boom);
    pool().intercept({ path: '/v2/events', method: 'POST' }).reply(200, tracked);
    expect(
      await client().call(ENDPOINTS.trackEvent, { body: { event: 'signup', email: 'a@b.c', clientEventId: 'k1' } }),
    ).toEqual(tracked.data);
    pool().intercept({ path: '/v2/events', method: 'POST' }).reply(500, boom);
    const unkeyed = await client()
      .call(ENDPOINTS.trackEvent, { body: { event: 'signup', email: 'a@b.c', clientEventId: '' } })
      .catch((e) => e);
    expect([unkeyed.status, mock.clock.sleeps.length]).toEqual([500, 2]); // one backoff each for the read and the keyed event
    expect(mock.agent.pendingInterceptors()).toEqual([]);
  });

  it('a batch add answers with its results, a failure without a message given an empty one', async () => {
    const results = [
      { added: true, cnvContactId: 'c1' },
      { added: false, error: 'contact_not_found' },
    ];
    pool()
      .intercept({
        path: '/v2/audiences/a1/contacts/batch',
        method: 'POST',
        body: '{"contacts":[{"email":"a@b.c"},{"email":"x@y.z"}]}',
      })
      .reply(200, { data: { results } });
    const got = await client().call(ENDPOINTS.batchAddToAudience, {
      params: { audienceId: 'a1' },
      body: { contacts: [{ email: 'a@b.c' }, { email: 'x@y.z' }] },
    });
    expect(got).toEqual([results[0], { ...results[1], message: '' }]);
  });

  it('--dry-run hands over the request a call would send, the same one requestOf makes for a preview', async () => {
    const shown: unknown[] = [];
    const input = { params: { customObjectId: 'o 1' }, body: { records: [{ clientDedupKey: 'k', fields: { n: 1 } }] } };
    const err = await client({ dryRun: (request) => shown.push(request) })
      .call(ENDPOINTS.upsertRecords, input)
      .catch((e) => e);
    expect(err).toBeInstanceOf(DryRunStop);
    const preview = requestOf(ENDPOINTS.upsertRecords, input);
    expect([preview.method, preview.path, preview.idempotency]).toEqual([
      'POST',
      '/v2/custom-objects/o%201/records/batch',
      'safe',
    ]);
    expect(shown).toEqual([
      {
        method: 'POST',
        url: `${MOCK_API}${preview.path}`,
        headers: expect.objectContaining({ 'x-api-key': 'sk_live_unit_****' }),
        body: preview.body,
      },
    ]);
  });
});
