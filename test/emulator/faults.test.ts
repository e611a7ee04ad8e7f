import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await admin(emu, 'DELETE', '/_emulator/faults');
  await admin(emu, 'POST', '/_emulator/stats/reset');
});

const getAda = () => call(emu, 'GET', `/v2/contacts?cnvContactId=${FX.ada.id}`);

describe('fault injection', () => {
  it('failNext answers the next n /v2 requests with 500 internal_error', async () => {
    const set = await admin(emu, 'POST', '/_emulator/faults', { failNext: 2 });
    expect(set.json.failNext).toBe(2);
    expectError(await getAda(), 500, 'internal_error');
    expectError(await getAda(), 500, 'internal_error');
    expect((await getAda()).status).toBe(200);
  });

  it('failNext applies before auth and state changes', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { failNext: 1 });
    expectError(
      await call(emu, 'POST', '/v2/contacts', { body: { email: 'failed.write@example.com' } }),
      500,
      'internal_error',
    );
    expect((await admin(emu, 'GET', '/_emulator/state/contacts?email=failed.write@example.com')).json).toEqual([]);
  });

  it('dropBeforeNext destroys the socket: fetch rejects and nothing changes', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { dropBeforeNext: 1 });
    await expect(
      call(emu, 'POST', '/v2/contacts', { body: { email: 'dropped.before@example.com' } }),
    ).rejects.toThrow();
    expect((await admin(emu, 'GET', '/_emulator/state/contacts?email=dropped.before@example.com')).json).toEqual([]);
    expect((await getAda()).status).toBe(200);
  });

  it('dropAfterNext handles the request (state changes) but never answers', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { dropAfterNext: 1 });
    await expect(
      call(emu, 'POST', '/v2/events', {
        body: { event: 'lost_answer', userId: 'user-ada', clientEventId: 'drop-after-1' },
      }),
    ).rejects.toThrow();
    const events = (await admin(emu, 'GET', '/_emulator/state/events?clientEventId=drop-after-1')).json;
    expect(events).toHaveLength(1);
    // The client's retry with the same clientEventId is recognised as a duplicate.
    const retry = await call(emu, 'POST', '/v2/events', {
      body: { event: 'lost_answer', userId: 'user-ada', clientEventId: 'drop-after-1' },
    });
    expect(retry.json.data).toMatchObject({ duplicate: true, cnvEventId: events[0].eventId });
  });

  it('cutBodyNext sends the status and half the announced body, then drops the socket', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { cutBodyNext: 1 });
    const res = await fetch(`${emu.url}/v2/exports/contacts`, {
      method: 'POST',
      headers: { 'x-api-key': emu.keys.full, 'content-type': 'application/json' },
      body: '{"limit":50}',
    });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(1000);
    await expect(res.text()).rejects.toThrow();
    expect((await getAda()).status).toBe(200);
  });

  it('rateLimitNext answers 429 rate_limited with the configured Retry-After', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { rateLimitNext: 1, retryAfter: 3 });
    const res = await getAda();
    expectError(res, 429, 'rate_limited');
    expect(res.headers.get('retry-after')).toBe('3');
    expect((await getAda()).status).toBe(200);
  });

  it('status5xxNext answers the given gateway status count times', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { status5xxNext: { status: 503, count: 2 } });
    expectError(await getAda(), 503, 'service_unavailable');
    expectError(await getAda(), 503, 'service_unavailable');
    expect((await getAda()).status).toBe(200);
    expectError(
      await admin(emu, 'POST', '/_emulator/faults', { status5xxNext: { status: 418, count: 1 } }),
      400,
      'invalid_request',
    );
  });

  it('latencyMs delays answers', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { latencyMs: 150 });
    const t0 = performance.now();
    expect((await getAda()).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('stats count a request held by latency as started, and as answered once it is', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { latencyMs: 1_500 });
    const answer = getAda();
    await new Promise((r) => setTimeout(r, 100));
    const held = (await admin(emu, 'GET', '/_emulator/stats')).json;
    expect(held.startedByRoute).toEqual({ 'GET /v2/contacts': 1 });
    expect(held.byRoute).toEqual({});
    expect((await answer).status).toBe(200);
    const done = (await admin(emu, 'GET', '/_emulator/stats')).json;
    expect(done.byRoute).toEqual({ 'GET /v2/contacts': 1 });
  });

  it('failRate 1 fails every request; DELETE resets all faults', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { failRate: 1, failNext: 5 });
    expectError(await getAda(), 500, 'internal_error');
    const reset = await admin(emu, 'DELETE', '/_emulator/faults');
    expect(reset.json).toMatchObject({ failRate: 0, failNext: 0, dropRate: 0, latencyMs: 0 });
    expect((await getAda()).status).toBe(200);
  });

  it('validates the faults body', async () => {
    expectError(await admin(emu, 'POST', '/_emulator/faults', { failRate: 2 }), 400, 'invalid_request');
    expectError(await admin(emu, 'POST', '/_emulator/faults', { failNext: -1 }), 400, 'invalid_request');
    expectError(await admin(emu, 'POST', '/_emulator/faults', { dropAfterNext: 'one' }), 400, 'invalid_request');
  });

  it('does not apply faults to admin routes', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { failNext: 1 });
    expect((await admin(emu, 'GET', '/_emulator/stats')).status).toBe(200);
    expectError(await getAda(), 500, 'internal_error');
  });

  it('counts requests by route pattern and status', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { failNext: 1, dropBeforeNext: 1 });
    await expect(getAda()).rejects.toThrow();
    await getAda();
    await getAda();
    await call(emu, 'GET', '/v2/contacts?email=ada@example.com', { key: null });
    await call(emu, 'GET', '/v2/unknown');
    const stats = (await admin(emu, 'GET', '/_emulator/stats')).json;
    expect(stats.total).toBe(5);
    expect(stats.dropped).toBe(1);
    expect(stats.byRoute).toEqual({ 'GET /v2/contacts': 4, 'GET (unmatched)': 1 });
    expect(stats.byStatus).toEqual({ dropped: 1, '500': 1, '200': 1, '401': 1, '404': 1 });
    expect(stats.byRouteStatus['GET /v2/contacts']).toEqual({ dropped: 1, '500': 1, '200': 1, '401': 1 });
  });
});

describe('startup fault options', () => {
  it('dropRate 1 drops every /v2 request but admin routes still answer', async () => {
    const lossy = await startEmulator({ port: 0, quiet: true, dropRate: 1 });
    try {
      await expect(call(lossy, 'GET', `/v2/contacts?cnvContactId=${FX.ada.id}`)).rejects.toThrow();
      expect((await admin(lossy, 'GET', '/_emulator/stats')).json.dropped).toBe(1);
    } finally {
      await lossy.close();
    }
  });

  it('rejects out-of-range options', async () => {
    await expect(startEmulator({ failRate: 1.5 })).rejects.toThrow(RangeError);
    await expect(startEmulator({ seed: 'lots' as never })).rejects.toThrow(RangeError);
  });
});
