import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  FIXTURE_BASIC_WORKFLOWS,
  FIXTURE_CONTACTS as FX,
  FIXTURE_WORKFLOWS as WF,
} from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(() => emu.close());

const trigger = (id: string, body: unknown, key?: string) =>
  call(emu, 'POST', `/v2/workflows/${id}/trigger`, { body, key });
const triggers = async (id: string) => (await admin(emu, 'GET', `/_emulator/state/workflows/${id}`)).json.triggers;

describe('POST /v2/workflows/:id/trigger', () => {
  it('triggers an API-triggered workflow and records the trigger with its data', async () => {
    const res = await trigger(WF.welcome.id, { email: FX.grace.email, data: { plan: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { triggered: true } });
    expect(await triggers(WF.welcome.id)).toEqual([
      { contactId: FX.grace.id, data: { plan: 'pro' }, triggeredAt: expect.any(String) },
    ]);
  });

  it('resolves cnvContactId, then userId, then email', async () => {
    await trigger(WF.reengage.id, { cnvContactId: FX.linus.id, userId: 'user-ada', email: FX.grace.email });
    await trigger(WF.reengage.id, { userId: 'user-ada', email: FX.grace.email });
    await trigger(WF.reengage.id, { userId: 'nobody', email: FX.grace.email });
    const contactIds = (await triggers(WF.reengage.id)).map((t: { contactId: string }) => t.contactId);
    expect(contactIds).toEqual([FX.linus.id, FX.ada.id, FX.grace.id]);
  });

  it('a paused API-triggered workflow answers triggered: false and records nothing', async () => {
    const res = await trigger(WF.paused.id, { email: FX.ada.email });
    expect(res.json).toEqual({ data: { triggered: false } });
    expect(await triggers(WF.paused.id)).toEqual([]);
  });

  it('answers the documented errors', async () => {
    expectError(
      await trigger('d1000000-0000-4000-8000-00000000ffff', { email: FX.ada.email }),
      404,
      'workflow_not_found',
    );
    expectError(await trigger('not-a-uuid', { email: FX.ada.email }), 404, 'workflow_not_found');
    expectError(await trigger(WF.formFollowUp.id, { email: FX.ada.email }), 400, 'workflow_not_api_triggered');
    expectError(await trigger(WF.welcome.id, {}), 400, 'missing_identifier');
    expectError(await trigger(WF.welcome.id, { email: 'bad' }), 400, 'invalid_email');
    expectError(await trigger(WF.welcome.id, { email: FX.ada.email, data: [1] }), 400, 'invalid_request');
    expectError(await trigger(WF.welcome.id, { email: 'nobody@example.com' }), 404, 'contact_not_found');
    expectError(
      await trigger(WF.welcome.id, { cnvContactId: 'a0000000-0000-4000-8000-00000000ffff', email: FX.ada.email }),
      404,
      'contact_not_found',
    );
  });

  it('a workflow of another business is unknown', async () => {
    expectError(
      await trigger(FIXTURE_BASIC_WORKFLOWS.basicWelcome.id, { email: FX.ada.email }),
      404,
      'workflow_not_found',
    );
    const res = await trigger(
      FIXTURE_BASIC_WORKFLOWS.basicWelcome.id,
      { email: 'basic.user@example.com' },
      emu.keys.basic,
    );
    expect(res.json.data.triggered).toBe(true);
  });
});
