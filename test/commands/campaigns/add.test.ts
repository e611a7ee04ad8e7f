import { describe, expect, it } from 'vitest';
import { FIXTURE_CAMPAIGNS as CA, FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);

describe('cnv campaigns (in-process)', () => {
  reseedBeforeEach(fx);

  it('add: one contact; archived campaign exits 5', async () => {
    const res = await cnvInProcess(['campaigns', 'add', CA.tradeShow.id, '--email', FX.linus.email], { env: fx.env });
    expect(json(res.stdout)).toEqual({ added: true, cnvContactId: FX.linus.id });
    const state = await fx.admin('GET', `/_emulator/state/campaigns/${CA.tradeShow.id}`);
    expect(state.members).toEqual([{ contactId: FX.linus.id, statusId: expect.any(String) }]);
    expect(
      (await cnvInProcess(['campaigns', 'add', CA.archived.id, '--email', FX.linus.email], { env: fx.env })).exitCode,
    ).toBe(5);
  });
});
