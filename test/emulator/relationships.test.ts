import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURE_CONTACTS as FX,
  FIXTURE_CUSTOM_OBJECT as CO,
  FIXTURE_RECORDS,
  FIXTURE_TARGETS as T,
} from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

// The spec's relationship rules, end to end: values written with `cnv records upsert` (and
// `cnv contacts upsert`), read back with `cnv contacts get` and the emulator's admin state.
let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let dir: string;
let fileNo = 0;
beforeAll(async () => {
  fx = await emulatorFixture();
  dir = tempConfigDir();
});
afterAll(() => fx.close());

const cli = (args: string[]) => cnvInProcess(args, { env: fx.env });
async function upsertRecords(csv: string) {
  const path = join(dir, `records-${++fileNo}.csv`);
  writeFileSync(path, csv);
  const res = await cli(['records', 'upsert', CO.id, '--file', path, '--report', '-']);
  expect(res.stderr).not.toMatch(/warning/);
  return res;
}
async function contactFields(email: string): Promise<Record<string, unknown>> {
  const res = await cli(['contacts', 'get', '--email', email, '--json']);
  expect(res.exitCode).toBe(0);
  return JSON.parse(res.stdout).fields;
}
const record = async (key: string) =>
  (
    await fx.admin('GET', `/_emulator/state/records?customObjectId=${CO.id}&clientDedupKey=${encodeURIComponent(key)}`)
  )[0];
const target = async (type: string, key: string) =>
  ((await fx.admin('GET', `/_emulator/state/targets?objectType=${type}`)) as any[]).find(
    (t) => t.clientDedupKey === key,
  );
async function relate(source: Record<string, unknown>, targetSide: Record<string, unknown>) {
  const res = await fetch(`${fx.emulator.url}/v2/fields/relationships`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': fx.emulator.keys.full },
    body: JSON.stringify({ source, target: targetSide }),
  });
  expect(res.status).toBe(200);
}

describe('relationships (spec: the source field maintains the reverse side; rule 2; pending)', () => {
  it('maintains the reverse field on the contact a record links to, and moves it when the link changes', async () => {
    // The seed links sub-grace to grace already.
    expect((await contactFields(FX.grace.email)).subscriptions).toBe(FIXTURE_RECORDS.grace.clientDedupKey);
    const res = await upsertRecords('clientDedupKey,subscriber\nrev-1,user-grace\nrev-2,GRACE@example.com\n');
    expect(res.exitCode).toBe(0);
    expect((await contactFields(FX.grace.email)).subscriptions).toBe('sub-grace;rev-1;rev-2');

    const before = (await fx.admin('GET', `/_emulator/state/contacts?id=${FX.ada.id}`))[0].updatedAt;
    await upsertRecords('clientDedupKey,subscriber\nrev-1,user-ada\n');
    expect((await contactFields(FX.grace.email)).subscriptions).toBe('sub-grace;rev-2');
    expect((await contactFields(FX.ada.email)).subscriptions).toBe('sub-ada;rev-1');
    // The contact changed, so an incremental contacts export sees it again.
    expect((await fx.admin('GET', `/_emulator/state/contacts?id=${FX.ada.id}`))[0].updatedAt > before).toBe(true);

    // Clearing the source value unlinks it.
    const path = join(dir, 'clear.ndjson');
    writeFileSync(path, '{"clientDedupKey":"rev-2","subscriber":null}\n');
    expect((await cli(['records', 'upsert', CO.id, '--file', path])).exitCode).toBe(0);
    expect((await contactFields(FX.grace.email)).subscriptions).toBe('sub-grace');
  });

  it('resolves a pending relationship when its target contact appears, on the record and on the reverse side', async () => {
    const res = await upsertRecords('clientDedupKey,subscriber\npend-1,late.comer@example.com\npend-2,user-late\n');
    expect(res.stdout).toMatch(/pending relationships \(target not found yet\): subscriber/);
    expect(await record('pend-1')).toMatchObject({
      pendingRelationships: { subscriber: 'late.comer@example.com' },
      relationships: {},
    });

    const created = await cli(['contacts', 'upsert', '--email', 'late.comer@example.com', '--json']);
    expect(created.exitCode).toBe(0);
    const id = JSON.parse(created.stdout).cnvContactId;
    expect(await record('pend-1')).toMatchObject({ pendingRelationships: {}, relationships: { subscriber: id } });
    expect((await contactFields('late.comer@example.com')).subscriptions).toBe('pend-1');
    // pend-2 waits for a userId; the contact gets one through a tracked event creating it.
    expect((await record('pend-2')).pendingRelationships).toEqual({ subscriber: 'user-late' });
    const tracked = await cli([
      'events',
      'track',
      '--event',
      'signed_up',
      '--user-id',
      'user-late',
      '--email',
      'late.two@example.com',
      '--set',
      'createContact=true',
    ]);
    expect(tracked.exitCode, tracked.stderr).toBe(0);
    expect((await record('pend-2')).pendingRelationships).toEqual({});
    expect((await contactFields('late.two@example.com')).subscriptions).toBe('pend-2');
  });

  it('treats relationship keys written through contact fields as relationships, resolved by clientDedupKey or left pending', async () => {
    await relate(
      { objectType: 'CONTACT', key: 'favouritePlan', label: 'Favourite plan' },
      { objectType: 'CUSTOM_OBJECT', customObjectId: CO.id, key: 'fans', label: 'Fans' },
    );
    expect(
      (await cli(['contacts', 'upsert', '--email', FX.ada.email, '--field', 'favouritePlan=sub-grace'])).exitCode,
    ).toBe(0);
    expect((await record('sub-grace')).fields.fans).toBe('user-ada');
    // A contact without userId is named by its email on the reverse side.
    expect(
      (await cli(['contacts', 'upsert', '--email', FX.linus.email, '--field', 'favouritePlan=plan-to-come'])).exitCode,
    ).toBe(0);
    expect((await contactFields(FX.linus.email)).favouritePlan).toBe('plan-to-come');
    await upsertRecords('clientDedupKey,planName\nplan-to-come,Future\n');
    expect((await record('plan-to-come')).fields).toEqual({ planName: 'Future', fans: FX.linus.email });
  });

  it('resolves companies, opportunities, campaigns and campaign members by their clientDedupKey, never by internal id, and never creates them', async () => {
    const targets = [
      ['COMPANY', 'account', 'accountSubscriptions'],
      ['OPPORTUNITY', 'deal', 'dealSubscriptions'],
      ['CAMPAIGN', 'campaign', 'campaignSubscriptions'],
      ['CAMPAIGN_MEMBER', 'membership', 'membershipSubscriptions'],
    ];
    for (const [objectType, key, reverse] of targets) {
      await relate(
        { objectType: 'CUSTOM_OBJECT', customObjectId: CO.id, key, label: key },
        { objectType, key: reverse, label: reverse },
      );
    }
    const res = await upsertRecords(
      'clientDedupKey,account,deal,campaign,membership\n' +
        `multi-1,${T.company.clientDedupKey},${T.opportunity.clientDedupKey},${T.campaign.clientDedupKey},${T.campaignMember.clientDedupKey}\n` +
        `multi-2,${T.company.id},opp-2002,${T.campaign.id},\n`,
    );
    expect(res.exitCode).toBe(0);
    expect(await record('multi-1')).toMatchObject({
      pendingRelationships: {},
      relationships: {
        account: T.company.id,
        deal: T.opportunity.id,
        campaign: T.campaign.id,
        membership: T.campaignMember.id,
      },
    });
    expect((await record('multi-2')).pendingRelationships).toEqual({
      account: T.company.id,
      deal: 'opp-2002',
      campaign: T.campaign.id,
    });
    expect((await target('COMPANY', T.company.clientDedupKey)).fields).toMatchObject({
      accountSubscriptions: 'multi-1',
    });
    expect((await target('OPPORTUNITY', T.opportunity.clientDedupKey)).fields).toEqual({
      dealSubscriptions: 'multi-1',
    });
    expect((await target('CAMPAIGN', T.campaign.clientDedupKey)).fields).toEqual({ campaignSubscriptions: 'multi-1' });
    expect((await target('CAMPAIGN_MEMBER', T.campaignMember.clientDedupKey)).fields).toEqual({
      membershipSubscriptions: 'multi-1',
    });
    expect(await target('OPPORTUNITY', 'opp-2002')).toBeUndefined();

    // The opportunity appears (no API creates one): the pending link resolves.
    const added = await fx.admin('POST', '/_emulator/targets', {
      objectType: 'OPPORTUNITY',
      clientDedupKey: 'opp-2002',
    });
    expect((await record('multi-2')).relationships).toEqual({ deal: added.id });
    expect((await target('OPPORTUNITY', 'opp-2002')).fields).toEqual({ dealSubscriptions: 'multi-2' });
  });

  it('resolves custom-object targets by clientDedupKey and maintains their reverse field', async () => {
    await upsertRecords('clientDedupKey,parentSubscription\nkid-1,parent-later\nkid-2,parent-later\nparent-later,\n');
    expect(await record('kid-1')).toMatchObject({
      pendingRelationships: {},
      relationships: { parentSubscription: (await record('parent-later')).id },
    });
    expect((await record('parent-later')).fields.childSubscriptions).toBe('kid-1;kid-2');
    expect((await record(FIXTURE_RECORDS.ada.clientDedupKey)).fields.childSubscriptions).toBe('sub-grace');
  });

  it('keeps updatedAt when a record write changes nothing', async () => {
    await upsertRecords('clientDedupKey,seats\nsteady,3\n');
    const first = await record('steady');
    await upsertRecords('clientDedupKey,seats\nsteady,3\n');
    expect((await record('steady')).updatedAt).toBe(first.updatedAt);
    await upsertRecords('clientDedupKey,seats\nsteady,4\n');
    expect((await record('steady')).updatedAt > first.updatedAt).toBe(true);
  });
});
