import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/workflows/trigger.js';
import { FIXTURE_CONTACTS as FX, FIXTURE_WORKFLOWS as WF } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `workflows trigger`'s run alone. A trigger is not idempotent: it is sent again only when the
// request provably never reached the server (429), never after an answer that may mean it ran.
const WF_ID = 'd1000000-0000-4000-8000-000000000001';
const PATH = `/v2/workflows/${WF_ID}/trigger`;

const f = useFakeContext();

describe('workflows trigger: run', () => {
  it('sends the identifier and --data; the record is the workflow id and the answer', async () => {
    f.api.on('POST', PATH, ok({ triggered: true }));
    const result = await run(f.ctx, { args: [WF_ID], opts: { userId: 'user-ada', data: { plan: 'pro' } } });
    expect(result).toEqual({ kind: 'record', data: { workflowId: WF_ID, triggered: true } });
    expect(f.api.requests[0].body).toEqual({ userId: 'user-ada', data: { plan: 'pro' } });
  });

  it('triggered: false is a success with a warning (the workflow did not start)', async () => {
    f.api.on('POST', PATH, ok({ triggered: false }));
    expect(await run(f.ctx, { args: [WF_ID], opts: { email: 'ada@example.com' } })).toMatchObject({
      data: { triggered: false },
    });
    expect(f.stderr()).toBe('warning: the API answered triggered: false (the workflow did not start; is it active?)\n');
  });

  it('a 429 (never processed) is sent again after its Retry-After', async () => {
    f.api.on('POST', PATH, apiError(429, 'rate_limited', 'slow down', { 'retry-after': '1' }), ok({ triggered: true }));
    expect(await run(f.ctx, { args: [WF_ID], opts: { email: 'ada@example.com' } })).toMatchObject({
      data: { triggered: true },
    });
    expect(f.api.requests).toHaveLength(2);
    expect(Math.max(...f.clock.sleeps)).toBeGreaterThanOrEqual(1000);
  });

  it('a 503, or a connection dropped after sending, is never sent again: exit 7, one request', async () => {
    f.api.on('POST', PATH, apiError(503, 'unavailable', 'try later'));
    const unavailable = await run(f.ctx, { args: [WF_ID], opts: { email: 'ada@example.com' } }).catch((e) => e);
    const unknown = 'the request may have reached the server and been applied: check before sending it again';
    expect(unavailable).toMatchObject({ exitCode: 7, code: 'unavailable', hint: unknown });
    expect(f.api.requests).toHaveLength(1);
    f.api.dropped('POST', PATH);
    const dropped = await run(f.ctx, { args: [WF_ID], opts: { email: 'ada@example.com' } }).catch((e) => e);
    expect(dropped).toMatchObject({ exitCode: 7, code: 'network_error', hint: unknown });
    // Sent once: a second attempt would find no stub, and verify() would name it.
    expect(f.clock.sleeps).toEqual([]);
  });

  it('no identifier: exit 2, nothing sent', async () => {
    await expect(run(f.ctx, { args: [WF_ID], opts: {} })).rejects.toMatchObject({
      exitCode: 2,
      code: 'missing_identifier',
    });
  });
});

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);
const triggers = async (id: string) =>
  (await fx.admin('GET', `/_emulator/state/workflows/${id}`)).triggers as Array<{ contactId: string; data: unknown }>;

describe('cnv workflows trigger (in-process)', () => {
  reseedBeforeEach(fx);

  it('triggers once for the contact, with the trigger data', async () => {
    const res = await cnvInProcess(
      ['workflows', 'trigger', WF.welcome.id, '--user-id', 'user-grace', '--data', '{"plan":"pro"}'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({ workflowId: WF.welcome.id, triggered: true });
    expect(await triggers(WF.welcome.id)).toEqual([
      expect.objectContaining({ contactId: FX.grace.id, data: { plan: 'pro' } }),
    ]);
  });

  it('a paused workflow: triggered false, a warning, exit 0', async () => {
    const res = await cnvInProcess(['workflows', 'trigger', WF.paused.id, '--email', FX.ada.email], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout).triggered).toBe(false);
    expect(res.stderr).toMatch(/warning: the API answered triggered: false/);
  });

  it.each([
    [[WF.formFollowUp.id, '--email', FX.ada.email], 3, /workflow_not_api_triggered/],
    [['d1000000-0000-4000-8000-00000000ffff', '--email', FX.ada.email], 5, /workflow_not_found/],
    [[WF.welcome.id, '--email', 'ghost@example.com'], 5, /contact_not_found/],
    [['not-a-uuid', '--email', FX.ada.email], 2, /expected a UUID/],
    [[WF.welcome.id], 2, /identify the contact with one of --contact-id, --user-id, --email/],
    [[WF.welcome.id, '--email', FX.ada.email, '--data', '[1]'], 2, /--data.*expected a JSON object/],
  ])('errors: %j exits %i', async (args, code, message) => {
    const res = await cnvInProcess(['workflows', 'trigger', ...args], { env: fx.env });
    expect(res.exitCode).toBe(code);
    expect(res.stderr).toMatch(message);
  });

  it('is not retried after a 500 or a dropped answer: it may have run (exit 7, triggered at most once)', async () => {
    await fx.faults({ dropAfterNext: 1 });
    const dropped = await cnvInProcess(
      ['workflows', 'trigger', WF.reengage.id, '--email', FX.ada.email, '--max-retries', '3'],
      { env: fx.env },
    );
    expect(dropped.exitCode).toBe(7);
    expect(await triggers(WF.reengage.id)).toHaveLength(1);
    await fx.faults({ failNext: 1 });
    const failed = await cnvInProcess(
      ['workflows', 'trigger', WF.reengage.id, '--email', FX.ada.email, '--max-retries', '3'],
      { env: fx.env },
    );
    expect(failed.exitCode).toBe(7);
    expect(await triggers(WF.reengage.id)).toHaveLength(1);
  });

  it('a 429 proves the trigger never ran, so it is retried and runs once', async () => {
    await fx.faults({ rateLimitNext: 1, retryAfter: 0 });
    const res = await cnvInProcess(['workflows', 'trigger', WF.reengage.id, '--email', FX.ada.email], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(await triggers(WF.reengage.id)).toHaveLength(1);
  });
});
