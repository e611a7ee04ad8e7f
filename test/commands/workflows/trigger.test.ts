import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/workflows/trigger.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `workflows trigger`'s run alone. A trigger is not idempotent: it is sent again only when the
// request provably never reached the server (429), never after an answer that may mean it ran.
const WF = 'd1000000-0000-4000-8000-000000000001';
const PATH = `/v2/workflows/${WF}/trigger`;

const f = useFakeContext();

describe('workflows trigger: run', () => {
  it('sends the identifier and --data; the record is the workflow id and the answer', async () => {
    f.api.on('POST', PATH, ok({ triggered: true }));
    const result = await run(f.ctx, { args: [WF], opts: { userId: 'user-ada', data: { plan: 'pro' } } });
    expect(result).toEqual({ kind: 'record', data: { workflowId: WF, triggered: true } });
    expect(f.api.requests[0].body).toEqual({ userId: 'user-ada', data: { plan: 'pro' } });
  });

  it('triggered: false is a success with a warning (the workflow did not start)', async () => {
    f.api.on('POST', PATH, ok({ triggered: false }));
    expect(await run(f.ctx, { args: [WF], opts: { email: 'ada@example.com' } })).toMatchObject({ data: { triggered: false } });
    expect(f.stderr()).toBe('warning: the API answered triggered: false (the workflow did not start; is it active?)\n');
  });

  it('a 429 (never processed) is sent again after its Retry-After', async () => {
    f.api.on('POST', PATH, apiError(429, 'rate_limited', 'slow down', { 'retry-after': '1' }), ok({ triggered: true }));
    expect(await run(f.ctx, { args: [WF], opts: { email: 'ada@example.com' } })).toMatchObject({ data: { triggered: true } });
    expect(f.api.requests).toHaveLength(2);
    expect(Math.max(...f.clock.sleeps)).toBeGreaterThanOrEqual(1000);
  });

  it('a 503, or a connection dropped after sending, is never sent again: exit 7, one request', async () => {
    f.api.on('POST', PATH, apiError(503, 'unavailable', 'try later'));
    const unavailable = await run(f.ctx, { args: [WF], opts: { email: 'ada@example.com' } }).catch((e) => e);
    const unknown = 'the request may have reached the server and been applied: check before sending it again';
    expect(unavailable).toMatchObject({ exitCode: 7, code: 'unavailable', hint: unknown });
    expect(f.api.requests).toHaveLength(1);
    f.api.dropped('POST', PATH);
    const dropped = await run(f.ctx, { args: [WF], opts: { email: 'ada@example.com' } }).catch((e) => e);
    expect(dropped).toMatchObject({ exitCode: 7, code: 'network_error', hint: unknown });
    // Sent once: a second attempt would find no stub, and verify() would name it.
    expect(f.clock.sleeps).toEqual([]);
  });

  it('no identifier: exit 2, nothing sent', async () => {
    await expect(run(f.ctx, { args: [WF], opts: {} })).rejects.toMatchObject({ exitCode: 2, code: 'missing_identifier' });
  });
});
