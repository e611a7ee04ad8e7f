import { beforeEach, describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES as AU,
  FIXTURE_CAMPAIGNS as CA,
  FIXTURE_CONTACTS as FX,
  FIXTURE_FORMS as FORMS,
  FIXTURE_WORKFLOWS as WF,
} from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();
// A reset re-seeds the emulator (a few hundred ms): only the groups whose tests write take one.
const resetEmulator = async () => {
  await fx.clearFaults();
  await fx.admin('POST', '/_emulator/reset');
};

const json = (s: string) => JSON.parse(s);
const triggers = async (id: string) => (await fx.admin('GET', `/_emulator/state/workflows/${id}`)).triggers as Array<{ contactId: string; data: unknown }>;
const members = async (id: string) => (await fx.admin('GET', `/_emulator/state/audiences/${id}`)).memberIds as string[];

describe('cnv workflows trigger (in-process)', () => {
  beforeEach(resetEmulator);

  it('triggers once for the contact, with the trigger data', async () => {
    const res = await cnvInProcess(['workflows', 'trigger', WF.welcome.id, '--user-id', 'user-grace', '--data', '{"plan":"pro"}'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout)).toEqual({ workflowId: WF.welcome.id, triggered: true });
    expect(await triggers(WF.welcome.id)).toEqual([expect.objectContaining({ contactId: FX.grace.id, data: { plan: 'pro' } })]);
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
    const dropped = await cnvInProcess(['workflows', 'trigger', WF.reengage.id, '--email', FX.ada.email, '--max-retries', '3'], { env: fx.env });
    expect(dropped.exitCode).toBe(7);
    expect(await triggers(WF.reengage.id)).toHaveLength(1);
    await fx.faults({ failNext: 1 });
    const failed = await cnvInProcess(['workflows', 'trigger', WF.reengage.id, '--email', FX.ada.email, '--max-retries', '3'], { env: fx.env });
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

describe('cnv audience add / remove (in-process)', () => {
  beforeEach(resetEmulator);

  it('adds a contact; adding again is a success that says nothing changed', async () => {
    const first = await cnvInProcess(['audience', 'add', AU.followUp.id, '--email', FX.grace.email], { env: fx.env });
    expect(first.exitCode).toBe(0);
    expect(json(first.stdout)).toEqual({ added: true, cnvContactId: FX.grace.id });
    const again = await cnvInProcess(['audiences', 'add', AU.followUp.id, '--contact-id', FX.grace.id], { env: fx.env });
    expect(json(again.stdout).added).toBe(false);
    expect(again.stderr).toMatch(/already in this audience/);
    expect(await members(AU.followUp.id)).toEqual([FX.grace.id]);
  });

  it('add errors: unknown contact 5, unknown audience 5, batch options without --batch 2', async () => {
    expect((await cnvInProcess(['audience', 'add', AU.followUp.id, '--email', 'ghost@example.com'], { env: fx.env })).exitCode).toBe(5);
    const unknown = await cnvInProcess(['audience', 'add', 'c1000000-0000-4000-8000-00000000ffff', '--email', FX.ada.email], { env: fx.env });
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stderr).toMatch(/audience_not_found/);
    const stray = await cnvInProcess(['audience', 'add', AU.followUp.id, '--email', FX.ada.email, '--report', 'r.csv'], { env: fx.env });
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr).toMatch(/--report: goes only with --batch/);
  });

  it('removes a membership, and says which it was when there was nothing to remove', async () => {
    const removed = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--user-id', 'user-ada'], { env: fx.env });
    expect(json(removed.stdout)).toEqual({ removed: true, cnvContactId: FX.ada.id, outcome: 'removed' });
    expect(await members(AU.newsletter.id)).toEqual([FX.grace.id]);
    expect(await members(AU.vip.id)).toEqual([FX.ada.id]);

    const notMember = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', FX.ada.email], { env: fx.env });
    expect(notMember.exitCode).toBe(0);
    expect(json(notMember.stdout).outcome).toBe('not_a_member');
    expect(notMember.stderr).toMatch(/was not a member/);

    const noContact = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', 'ghost@example.com'], { env: fx.env });
    expect(noContact.exitCode).toBe(0);
    expect(json(noContact.stdout)).toEqual({ removed: false, cnvContactId: null, outcome: 'no_such_contact' });
    expect(noContact.stderr).toMatch(/no contact matched/);
  });

  it('remove needs the audience edit permission (exit 4)', async () => {
    const res = await cnvInProcess(['audience', 'remove', AU.newsletter.id, '--email', FX.ada.email], { env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.limited } });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/^error: forbidden: /m);
    expect(await members(AU.newsletter.id)).toContain(FX.ada.id);
  });
});

describe('cnv campaigns (in-process)', () => {
  beforeEach(resetEmulator);

  const activeCount = () => [...fx.emulator.store.business('acme').campaigns.values()].filter((c) => !c.archived).length;

  it('list: one page as rows, and the next cursor on stderr', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '5'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const rows = json(res.stdout);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({ id: CA.springWebinar.id, type: { name: 'Webinar' }, memberCount: 1 });
    expect(res.stderr).toMatch(/^next page: --cursor \S+ \(or --all for every page\)$/m);
  });

  it('list --json: the same array as piped, the cursor on stderr; the cursor continues', async () => {
    const piped = await cnvInProcess(['campaigns', 'list', '--limit', '2'], { env: fx.env });
    const first = await cnvInProcess(['campaigns', 'list', '--limit', '2', '--json'], { env: fx.env });
    expect(first.stdout).toBe(piped.stdout);
    expect(json(first.stdout)).toEqual([expect.objectContaining({ id: CA.springWebinar.id }), expect.objectContaining({ id: CA.tradeShow.id })]);
    const cursor = /^next page: --cursor (\S+) /m.exec(first.stderr)![1];
    const second = json((await cnvInProcess(['campaigns', 'list', '--limit', '2', '--json', '--cursor', cursor], { env: fx.env })).stdout);
    expect(second[0].id).not.toBe(CA.tradeShow.id);
  });

  it('list --all follows every cursor (ndjson, csv), without archived campaigns', async () => {
    const ndjson = await cnvInProcess(['campaigns', 'list', '--all', '-o', 'ndjson', '--limit', '30'], { env: fx.env });
    const ids = ndjson.stdout.trim().split('\n').map((l) => json(l).id);
    expect(ids).toHaveLength(activeCount());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(CA.archived.id);
    expect(ndjson.stderr).not.toMatch(/next page/);
    const csv = await cnvInProcess(['campaigns', 'list', '--all', '-o', 'csv'], { env: fx.env });
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,name,type.id,type.name,type.systemType,sfdcCampaignId,memberCount,createdAt,updatedAt,_extra');
    expect(lines).toHaveLength(activeCount() + 1);
  });

  it('list: a bad cursor exits 3 with invalid_cursor', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--cursor', 'garbage'], { env: fx.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_cursor/);
  });

  it('get: statuses in progression order and the description; archived exits 5', async () => {
    const res = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id], { env: fx.env });
    const campaign = json(res.stdout);
    expect(campaign.description).toBe(CA.springWebinar.description);
    expect(campaign.type.statuses.map((s: { name: string; isSuccess: boolean }) => `${s.name}:${s.isSuccess}`)).toEqual([
      'Invited:false', 'Registered:false', 'Attended:true', 'No-show:false',
    ]);
    await fx.admin('POST', `/_emulator/campaigns/${CA.springWebinar.id}/archive`);
    const archived = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id], { env: fx.env });
    expect(archived.exitCode).toBe(5);
    expect(archived.stderr).toMatch(/campaign_not_found/);
  });

  it('get on a terminal table keeps the status order', async () => {
    const res = await cnvInProcess(['campaigns', 'get', CA.springWebinar.id, '-o', 'table', '--no-color'], { env: fx.env });
    const order = ['Invited', 'Registered', 'Attended', 'No-show'].map((name) => res.stdout.indexOf(name));
    expect(order.every((pos, i) => pos > 0 && (i === 0 || pos > order[i - 1]))).toBe(true);
    expect(res.stdout).toContain(CA.springWebinar.description);
  });

  it('add: one contact; archived campaign exits 5', async () => {
    const res = await cnvInProcess(['campaigns', 'add', CA.tradeShow.id, '--email', FX.linus.email], { env: fx.env });
    expect(json(res.stdout)).toEqual({ added: true, cnvContactId: FX.linus.id });
    const state = await fx.admin('GET', `/_emulator/state/campaigns/${CA.tradeShow.id}`);
    expect(state.members).toEqual([{ contactId: FX.linus.id, statusId: expect.any(String) }]);
    expect((await cnvInProcess(['campaigns', 'add', CA.archived.id, '--email', FX.linus.email], { env: fx.env })).exitCode).toBe(5);
  });
});

describe('cnv forms get (in-process)', () => {
  it('prints the form with every field, options included, and an unknown field type as it comes', async () => {
    const res = await cnvInProcess(['forms', 'get', FORMS.contactUs.id], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const form = json(res.stdout);
    expect(form.fields.map((f: { type: string }) => f.type)).toEqual(['EMAIL', 'DROPDOWN', 'LONG_ANSWER', 'HIDDEN', 'MULTI_CHECKBOX', 'GDPR_CONSENT']);
    expect(form.fields[4].options).toEqual([{ label: 'Exports', value: 'exports' }, { label: 'Workflows', value: 'workflows' }, { label: 'Forms', value: 'forms' }]);
  });

  it('is readable as a table: a row per field with type, required, hidden and options', async () => {
    const res = await cnvInProcess(['forms', 'get', FORMS.contactUs.id, '-o', 'table', '--no-color'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const topic = res.stdout.split('\n').find((l) => l.includes('Topic'))!;
    expect(topic).toMatch(/DROPDOWN {2,}true {2,}false {2,}Sales \(sales\), Support \(support\), Press \(press\)/);
    expect(res.stdout).toMatch(/GDPR_CONSENT/);
  });

  it.each([FORMS.untracked.id, FORMS.external.id, FORMS.ad.id, FORMS.neverPublished.id])('an unreadable form exits 5: %s', async (id) => {
    const res = await cnvInProcess(['forms', 'get', id], { env: fx.env });
    expect(res.exitCode).toBe(5);
    expect(res.stderr).toMatch(/^error: form_not_found: /m);
  });
});
