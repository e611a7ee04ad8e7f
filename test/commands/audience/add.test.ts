import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES as AU, FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);
const members = async (id: string) => (await fx.admin('GET', `/_emulator/state/audiences/${id}`)).memberIds as string[];

describe('cnv audience add / remove (in-process)', () => {
  reseedBeforeEach(fx);

  it('adds a contact; adding again is a success that says nothing changed', async () => {
    const first = await cnvInProcess(['audience', 'add', AU.followUp.id, '--email', FX.grace.email], { env: fx.env });
    expect(first.exitCode).toBe(0);
    expect(json(first.stdout)).toEqual({ added: true, cnvContactId: FX.grace.id });
    const again = await cnvInProcess(['audiences', 'add', AU.followUp.id, '--contact-id', FX.grace.id], {
      env: fx.env,
    });
    expect(json(again.stdout).added).toBe(false);
    expect(again.stderr).toMatch(/already in this audience/);
    expect(await members(AU.followUp.id)).toEqual([FX.grace.id]);
  });

  it('add errors: unknown contact 5, unknown audience 5, batch options without --batch 2', async () => {
    expect(
      (await cnvInProcess(['audience', 'add', AU.followUp.id, '--email', 'ghost@example.com'], { env: fx.env }))
        .exitCode,
    ).toBe(5);
    const unknown = await cnvInProcess(
      ['audience', 'add', 'c1000000-0000-4000-8000-00000000ffff', '--email', FX.ada.email],
      { env: fx.env },
    );
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stderr).toMatch(/audience_not_found/);
    const stray = await cnvInProcess(
      ['audience', 'add', AU.followUp.id, '--email', FX.ada.email, '--report', 'r.csv'],
      { env: fx.env },
    );
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr).toMatch(/--report: goes only with --batch/);
  });
});
