import { describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES as AU,
  FIXTURE_CAMPAIGNS as CA,
  FIXTURE_CONTACTS as FX,
} from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';

// audience sync and campaigns sync in-process: the plan, --exit-code, a key column whose
// identifier moves to another contact, contacts named by two keys, rows that block removals,
// rows retried, and a campaign that is only added to.

const fx = useEmulator({ seedContacts: 50 });
reseedBeforeEach(fx);
const { write, reportPath, readReport } = batchFiles('cnv-audience-sync-cmd-');
const AUD = AU.followUp.id;
const email = (i: number) => `bulk.${i}@example.com`;
const bulkId = (i: number) => `f0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const members = async (id = AUD) =>
  ((await fx.admin('GET', `/_emulator/state/audiences/${id}`)) as { memberIds: string[] }).memberIds.sort();
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function run(args: string[], config: string, more: Parameters<typeof cnvInProcess>[1] = {}) {
  return cnvInProcess(args, { ...more, env: { ...fx.env, CNV_CONFIG_DIR: config } });
}

describe('cnv audience sync (in-process)', () => {
  it('--plan lists each add and removal and the requests they take, sends nothing; --exit-code is 9 while something would change', async () => {
    const config = tempConfigDir();
    const all = write('all.csv', `email\n${[1, 2, 3, 4].map(email).join('\n')}\n`);
    expect((await run(['audience', 'sync', AUD, '--file', all], config)).exitCode).toBe(0);
    const next = write('next.csv', `email\n${[2, 3, 4, 5, 6].map(email).join('\n')}\n`);
    await fx.resetStats();
    const plan = await run(['audience', 'sync', AUD, '--file', next, '--plan', '--exit-code'], config);
    expect(plan.exitCode, plan.stderr).toBe(9);
    expect(lines(plan.stdout)).toEqual([
      { type: 'add', line: 5, key: `email:${email(5)}`, contact: email(5) },
      { type: 'add', line: 6, key: `email:${email(6)}`, contact: email(6) },
      { type: 'remove', key: `email:${email(1)}`, cnvContactId: bulkId(1), held: false },
      { type: 'summary', add: 2, update: 0, remove: 1, held: 0, unchanged: 3, invalid: 0, requests: 2, seconds: 0 },
    ]);
    expect(plan.stderr).toContain('plan: 2 to add, 0 to update, 1 to remove, 3 unchanged, 0 invalid; 2 requests');
    expect((await fx.stats()).total).toBe(0);
    // On a terminal, a table and the counts.
    const table = await run(['audience', 'sync', AUD, '--file', next, '--plan'], config, { stdoutIsTTY: true });
    expect(table.stdout).toMatch(/line\s+action\s+contact\s+id/);
    expect(table.stdout).toMatch(/remove\s+email:bulk\.1@example\.com\s+f0000000/);
    expect(table.stdout).toContain('Plan: 2 to add, 0 to update, 1 to remove');
    // --plan prints the plan on stdout: not the report too.
    expect((await run(['audience', 'sync', AUD, '--file', next, '--plan', '--report', '-'], config)).exitCode).toBe(2);
    const sent = await run(['audience', 'sync', AUD, '--file', next, '--exit-code'], config);
    expect(sent.exitCode).toBe(9);
    expect(await members()).toEqual([2, 3, 4, 5, 6].map(bulkId).sort());
  });

  it('--key-column: a key whose email now names another contact adds that one and removes the one it named', async () => {
    const config = tempConfigDir();
    const crm = (rows: Array<[string, number]>) =>
      write('crm.csv', `crm_id,email\n${rows.map(([k, i]) => `${k},${email(i)}`).join('\n')}\n`);
    expect(
      (
        await run(
          [
            'audience',
            'sync',
            AUD,
            '--file',
            crm([
              ['A', 1],
              ['B', 2],
            ]),
            '--key-column',
            'CRM ID',
          ],
          config,
        )
      ).exitCode,
    ).toBe(0);
    const report = reportPath();
    const moved = await run(
      [
        'audience',
        'sync',
        AUD,
        '--file',
        crm([
          ['A', 3],
          ['B', 2],
        ]),
        '--key-column',
        'CRM ID',
        '--report',
        report,
        '--json',
      ],
      config,
    );
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout).ledger).toMatchObject({ updated: 1, unchanged: 1, removed: 1 });
    expect(await members()).toEqual([bulkId(2), bulkId(3)].sort());
    expect(readReport(report).map((r) => [r.identifier, r.status])).toEqual([
      [email(3), 'added'],
      [email(2), 'unchanged'],
      [bulkId(1), 'removed'],
    ]);
    // A key column the header lacks refuses the file before anything is sent.
    const missing = await run(['audience', 'sync', AUD, '--file', crm([['A', 3]]), '--key-column', 'customer'], config);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--key-column "customer": .* has no such column \(its columns: "crm_id", "email"\)/);
  });

  it('a contact another key of the file still names stays; a row without a key keeps every member; a row that failed is sent again', async () => {
    const config = tempConfigDir();
    const first = write('first.csv', `email,cnvContactId\n${email(1)},\n${email(2)},\n`);
    expect((await run(['audience', 'sync', AUD, '--file', first], config)).exitCode).toBe(0);
    // bulk.1 now by its id: its email key left the file, the contact did not.
    const byId = write('by-id.csv', `email,cnvContactId\n,${bulkId(1)}\n${email(2)},\n`);
    const kept = await run(['audience', 'sync', AUD, '--file', byId, '--json'], config);
    expect(JSON.parse(kept.stdout).ledger).toMatchObject({ added: 1, removed: 0 });
    expect(await members()).toEqual([bulkId(1), bulkId(2)].sort());
    // A row with no valid key: it may name a member, so nothing is removed; one no contact has fails and goes again.
    const bad = write('bad.csv', `email,cnvContactId\nnot-an-email,\nnobody@example.com,\n`);
    const blocked = await run(['audience', 'sync', AUD, '--file', bad], config);
    expect(blocked.exitCode).toBe(6);
    expect(blocked.stderr).toContain(
      'nothing is removed this run: 1 row of the file could not be read or had no valid key',
    );
    expect(await members()).toEqual([bulkId(1), bulkId(2)].sort());
    await fx.resetStats();
    const again = await run(['audience', 'sync', AUD, '--file', bad, '--json'], config);
    expect(JSON.parse(again.stdout).byStatus).toEqual({ failed: 1, invalid: 1 });
    expect((await fx.stats()).byRoute).toEqual({ 'POST /v2/audiences/:audienceId/contacts/batch': 1 });
  });

  it('campaigns sync: adds only the contacts not added yet; a contact that leaves the file stays a member (the API cannot remove)', async () => {
    const config = tempConfigDir();
    const campaign = CA.springWebinar.id;
    const file = write('attendees.csv', `email\n${FX.ada.email}\n${email(7)}\n`);
    const first = await run(['campaigns', 'sync', campaign, '--file', file, '--json'], config);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).ledger).toMatchObject({ added: 2 });
    await fx.resetStats();
    const fewer = write('fewer.csv', `email\n${email(7)}\n${email(8)}\n`);
    const second = await run(['campaigns', 'sync', campaign, '--file', fewer, '--json'], config);
    expect(JSON.parse(second.stdout).ledger).toMatchObject({ added: 1, unchanged: 1, removed: 0 });
    expect((await fx.stats()).byRoute).toEqual({ 'POST /v2/campaigns/:campaignId/contacts/batch': 1 });
    const state = (await fx.admin('GET', `/_emulator/state/campaigns/${campaign}`)) as {
      members: Array<{ contactId: string }>;
    };
    expect(state.members.map((m) => m.contactId)).toEqual(expect.arrayContaining([FX.ada.id, bulkId(7), bulkId(8)]));
  });
});
