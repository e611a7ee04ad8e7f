import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/audience/remove.js';
import { FIXTURE_AUDIENCES as AU, FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { fakeContext, useFakeContext } from '../../helpers/fake-context.js';

// `audience remove`'s run alone: DELETE with the identifier as its body; removing twice leaves the same state, so it is retried.
const AUDIENCE = 'c1000000-0000-4000-8000-000000000001';
const CONTACT = 'a1000000-0000-4000-8000-000000000001';
const PATH = `/v2/audiences/${AUDIENCE}/contacts`;

const f = useFakeContext();

describe('audience remove: run', () => {
  it('removed: the answer and its outcome; the identifier is the body', async () => {
    f.api.on('DELETE', PATH, ok({ removed: true, cnvContactId: CONTACT }));
    expect(await run(f.ctx, { args: [AUDIENCE], opts: { email: 'ada@example.com' } })).toEqual({
      kind: 'record',
      data: { removed: true, cnvContactId: CONTACT, outcome: 'removed' },
    });
    expect(f.api.requests[0].body).toEqual({ email: 'ada@example.com' });
    expect(f.stderr()).toBe('');
  });

  it('not a member, or no such contact: a success whose outcome says which, with a note', async () => {
    f.api.on('DELETE', PATH, ok({ removed: false, cnvContactId: CONTACT }), ok({ removed: false, cnvContactId: null }));
    expect(await run(f.ctx, { args: [AUDIENCE], opts: { contactId: CONTACT } })).toMatchObject({
      data: { outcome: 'not_a_member' },
    });
    expect(await run(f.ctx, { args: [AUDIENCE], opts: { userId: 'nobody' } })).toMatchObject({
      data: { outcome: 'no_such_contact' },
    });
    expect(f.stderr()).toBe(
      'note: the contact was not a member of this audience; nothing changed\nnote: no contact matched; nothing changed\n',
    );
  });

  it('a 502 is retried (a repeat changes nothing more); a 403 is exit 4 at once', async () => {
    f.api.on(
      'DELETE',
      PATH,
      apiError(502, 'bad_gateway', 'upstream'),
      ok({ removed: true, cnvContactId: CONTACT }),
      apiError(403, 'forbidden', 'no edit permission'),
    );
    expect(await run(f.ctx, { args: [AUDIENCE], opts: { email: 'ada@example.com' } })).toMatchObject({
      data: { outcome: 'removed' },
    });
    expect(f.clock.sleeps).toEqual([250]);
    await expect(run(f.ctx, { args: [AUDIENCE], opts: { email: 'ada@example.com' } })).rejects.toMatchObject({
      exitCode: 4,
      code: 'forbidden',
    });
  });

  it('--quiet keeps the note off stderr', async () => {
    const quiet = fakeContext({ api: f.api, globals: { quiet: true } });
    f.api.on('DELETE', PATH, ok({ removed: false, cnvContactId: null }));
    expect(await run(quiet.ctx, { args: [AUDIENCE], opts: { email: 'ada@example.com' } })).toMatchObject({
      data: { outcome: 'no_such_contact' },
    });
    expect(quiet.stderr()).toBe('');
  });
});

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);
const members = async (id: string) => (await fx.admin('GET', `/_emulator/state/audiences/${id}`)).memberIds as string[];

describe('cnv audience add / remove (in-process)', () => {
  reseedBeforeEach(fx);

  it('removes a membership, and says which it was when there was nothing to remove', async () => {
    const removed = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--user-id', 'user-ada'], {
      env: fx.env,
    });
    expect(json(removed.stdout)).toEqual({ removed: true, cnvContactId: FX.ada.id, outcome: 'removed' });
    expect(await members(AU.newsletter.id)).toEqual([FX.grace.id]);
    expect(await members(AU.vip.id)).toEqual([FX.ada.id]);

    const notMember = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', FX.ada.email], {
      env: fx.env,
    });
    expect(notMember.exitCode).toBe(0);
    expect(json(notMember.stdout).outcome).toBe('not_a_member');
    expect(notMember.stderr).toMatch(/was not a member/);

    const noContact = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', 'ghost@example.com'], {
      env: fx.env,
    });
    expect(noContact.exitCode).toBe(0);
    expect(json(noContact.stdout)).toEqual({ removed: false, cnvContactId: null, outcome: 'no_such_contact' });
    expect(noContact.stderr).toMatch(/no contact matched/);
  });

  it('remove needs the audience edit permission (exit 4)', async () => {
    const res = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', FX.ada.email], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.limited },
    });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: forbidden: /m);
    expect(await members(AU.newsletter.id)).toContain(FX.ada.id);
  });
});
