import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { planLines, syncTools, UPSERT } from '../../helpers/sync-runs.js';

// contacts sync --key-column in-process against the emulator (docs/sync.md, "A key column"):
// the ledger maps the file's own id to the contact the API answered, so a person whose email
// changed updates that contact; a key repeated, blank or missing; the key column sent only when
// it names a field; a contact deleted in the account. Kills, a damaged ledger and the lock are
// tried through the binary (test/e2e/sync-key-column.test.ts).

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-sync-key-');
const { count, envWith } = syncTools(fx, cnvInProcess);

type Row = [key: string, email: string, city: string];
const crm = (rows: Row[]) => `crm_id,email,city\n${rows.map((r) => r.join(',')).join('\n')}\n`;

/** The contacts the account holds with this email. */
async function withEmail(
  email: string,
): Promise<Array<{ id: string; email: string; fields: Record<string, unknown> }>> {
  return fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`);
}

function sync(env: Record<string, string>, file: string, ...more: string[]) {
  return cnvInProcess(['contacts', 'sync', '--file', file, '--key-column', 'crm_id', ...more], { env });
}

describe('contacts sync --key-column', () => {
  it('an email changed in the file updates the same contact: --plan shows old -> new on it, the run keeps one contact (its id, the new email), a rerun sends nothing', async () => {
    const env = envWith();
    const rows: Row[] = [
      ['c-1', 'key-1@example.com', 'Oslo'],
      ['c-2', 'key-2@example.com', 'Rome'],
      ['c-3', 'key-3@example.com', 'Lima'],
    ];
    const first = await sync(env, write('first.csv', crm(rows)), '--json');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /note: no ledger of \S+\/contacts-sync\/crm_id yet .*each row is matched by its email/,
    );
    expect(JSON.parse(first.stdout).ledger).toMatchObject({ trusted: false, matched: 0, recorded: 3, gone: 0 });
    const [before] = await withEmail('key-2@example.com');

    const moved = write('moved.csv', crm([rows[0], ['c-2', 'key-2.new@example.com', 'Rome'], rows[2]]));
    await fx.resetStats();
    const plan = await sync(env, moved, '--plan');
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(planLines(plan.stdout)).toEqual([
      {
        type: 'change',
        line: 3,
        action: 'update',
        contact: 'key-2.new@example.com',
        cnvContactId: before.id,
        changes: [{ field: 'email', old: 'key-2@example.com', new: 'key-2.new@example.com' }],
        unsure: null,
      },
      expect.objectContaining({ type: 'summary', create: 0, update: 1, unchanged: 2 }),
    ]);
    const dry = await sync(env, moved, '--dry-run');
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout.trim())).toMatchObject({
      method: 'POST',
      body: { cnvContactId: before.id, email: 'key-2.new@example.com', fields: { city: 'Rome' } },
    });
    expect(await count(UPSERT)).toBe(0);

    const report = reportPath();
    const run = await sync(env, moved, '--report', report, '--json');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await count(UPSERT)).toBe(1);
    expect(JSON.parse(run.stdout).ledger).toMatchObject({ trusted: true, matched: 3, newEmail: 1, recorded: 0 });
    expect(run.stderr).toMatch(
      /^ledger: 3 matched by key \(1 with a new email\), 0 recorded \(job \S+\/contacts-sync\/crm_id\)$/m,
    );
    expect(readReport(report)[1]).toMatchObject({
      status: 'updated',
      cnvContactId: before.id,
      message: expect.stringContaining('a new email for the contact of crm_id "c-2"'),
    });
    expect(await withEmail('key-2@example.com')).toEqual([]);
    expect((await withEmail('key-2.new@example.com')).map((c) => c.id)).toEqual([before.id]);

    await fx.resetStats();
    const again = await sync(env, moved, '--exit-code');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await count(UPSERT)).toBe(0);
  });

  it("a first sync of contacts already in the account records each key's contact from the snapshot (no request), so a later email change updates it", async () => {
    const env = envWith();
    const rows: Row[] = [
      ['s-1', 'seeded-1@example.com', 'Oslo'],
      ['s-2', 'seeded-2@example.com', 'Rome'],
    ];
    const seeded = await cnvInProcess(
      ['contacts', 'upsert', '--file', write('seed.csv', crm(rows)), '--map', 'crm_id=-'],
      {
        env: fx.env,
      },
    );
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const [ada] = await withEmail('seeded-1@example.com');
    await fx.resetStats();
    const first = await sync(env, write('in-sync.csv', crm(rows)), '--json');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(await count(UPSERT)).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      sync: { unchanged: 2 },
      ledger: { recorded: 2, matched: 0 },
    });
    const moved = await sync(
      env,
      write('in-sync-moved.csv', crm([['s-1', 'seeded-1.new@example.com', 'Oslo'], rows[1]])),
    );
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect((await withEmail('seeded-1.new@example.com')).map((c) => c.id)).toEqual([ada.id]);
    expect(await withEmail('seeded-1@example.com')).toEqual([]);
  });

  it('a key repeated in the file: its first row is synced, the later ones are invalid (duplicate_key); a blank key is invalid (missing_identifier)', async () => {
    const env = envWith();
    const report = reportPath();
    const file = write(
      'repeated.csv',
      crm([
        ['r-1', 'rep-1@example.com', 'Oslo'],
        ['r-1', 'rep-2@example.com', 'Rome'],
        [' ', 'rep-3@example.com', 'Lima'],
        ['r-2', 'rep-4@example.com', 'Kyiv'],
      ]),
    );
    const res = await sync(env, file, '--report', report);
    expect(res.exitCode).toBe(6);
    expect(readReport(report).map((r) => [r.line, r.status, r.error])).toEqual([
      ['2', 'created', ''],
      ['3', 'invalid', 'duplicate_key'],
      ['4', 'invalid', 'missing_identifier'],
      ['5', 'created', ''],
    ]);
    expect(readReport(report)[1].message).toBe(
      '--key-column "crm_id": "r-1" is the key of line 2 too; a key names one contact, so only its first row is synced',
    );
    expect(await withEmail('rep-2@example.com')).toEqual([]);
  });

  it('the key column is not sent when it names nothing a contact takes, and is sent when it names a field; --key-column naming no column exits 2 naming the flag, leaving no ledger', async () => {
    const env = envWith();
    const created = await cnvInProcess(
      [
        'fields',
        'create',
        ...'--object-type contact --key customerId --data-type string'.split(' '),
        '--label',
        'Customer ID',
      ],
      { env: fx.env },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const file = write('customer.csv', 'Customer ID,email\ncu-1,customer-1@example.com\n');
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--key-column', 'Customer ID', '--json'], {
      env,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).columns[0]).toMatchObject({ column: 'Customer ID', sentAs: 'fields.customerId' });
    expect((await withEmail('customer-1@example.com'))[0].fields).toMatchObject({ customerId: 'cu-1' });
    const plain = await sync(env, write('plain.csv', crm([['p-1', 'plain-1@example.com', 'Oslo']])), '--json');
    expect(JSON.parse(plain.stdout).columns[0]).toEqual({
      column: 'crm_id',
      sentAs: null,
      note: 'the key (--key-column)',
    });

    const fresh = envWith();
    await fx.resetStats();
    const missing = await cnvInProcess(['contacts', 'sync', '--file', file, '--key-column', 'crm_id'], { env: fresh });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: unknown_column: --key-column "crm_id": \S+customer\.csv has no such column \(its columns: "Customer ID", "email"\)/m,
    );
    expect(await count(UPSERT)).toBe(0);
    expect(existsSync(join(fresh.CNV_CONFIG_DIR, 'ledger'))).toBe(false);
    // NDJSON has no header: a row without the key is invalid, never sent.
    const ndjson = write('no-key.ndjson', '{"email":"nokey-1@example.com"}\n');
    const row = await cnvInProcess(['contacts', 'sync', '--file', ndjson, '--key-column', 'crm_id'], { env: fresh });
    expect(row.exitCode).toBe(6);
    expect(row.stderr).toMatch(/invalid: missing_identifier: --key-column "crm_id": the row has no such column/);
  });

  it('a contact the ledger recorded and the account deleted: matched by email once the snapshot no longer holds it; sent by its id while it does (contact_not_found, then forgotten)', async () => {
    const env = envWith();
    const file = write(
      'deleted.csv',
      crm([
        ['d-1', 'deleted-1@example.com', 'Oslo'],
        ['d-2', 'deleted-2@example.com', 'Rome'],
      ]),
    );
    expect((await sync(env, file)).exitCode).toBe(0);
    // A second run's refresh reads the contacts the first one made: the snapshot holds them.
    expect((await sync(env, file)).exitCode).toBe(0);
    const [one] = await withEmail('deleted-1@example.com');
    const [two] = await withEmail('deleted-2@example.com');
    expect((await fx.admin('POST', `/_emulator/contacts/${one.id}/delete`)).deleted).toBe(true);
    expect((await fx.admin('POST', `/_emulator/contacts/${two.id}/delete`)).deleted).toBe(true);

    // The snapshot still holds d-2's contact (only a full refresh sees a deletion): sent by its id.
    const report = reportPath();
    const movedTwo = write('deleted-moved.csv', crm([['d-2', 'deleted-2.new@example.com', 'Rome']]));
    const stale = await sync(env, movedTwo, '--report', report, '--json');
    expect(stale.exitCode).toBe(6);
    expect(readReport(report)[0]).toMatchObject({
      status: 'failed',
      error: 'contact_not_found',
      message: expect.stringContaining('the ledger forgets the contact of this key'),
    });
    expect(JSON.parse(stale.stdout).ledger).toMatchObject({ matched: 1, gone: 1 });
    const healed = await sync(env, movedTwo, '--json');
    expect(healed.exitCode, healed.stderr).toBe(0);
    expect(JSON.parse(healed.stdout)).toMatchObject({ sync: { create: 1 }, ledger: { matched: 0, recorded: 1 } });

    // A full refresh no longer holds d-1's contact: the row is matched by its email, and the new contact recorded.
    const movedOne = write('deleted-one.csv', crm([['d-1', 'deleted-1.new@example.com', 'Oslo']]));
    const full = await sync(env, movedOne, '--full-refresh', '--json');
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stderr).toMatch(
      /note: 1 row: the contact recorded for crm_id "d-1" \(\S+\) is not in the account: matched by email/,
    );
    expect(JSON.parse(full.stdout)).toMatchObject({ sync: { create: 1 }, ledger: { gone: 1, recorded: 1 } });
    const [made] = await withEmail('deleted-1.new@example.com');
    expect(made.id).not.toBe(one.id);
    await fx.resetStats();
    expect((await sync(env, movedOne, '--json')).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(0);
  });

  it('two keys the ledger gives one contact (two people who shared an email): only the first row gets it, the other is matched by its email, so they stop sharing', async () => {
    const env = envWith();
    const shared = write(
      'shared.csv',
      crm([
        ['h-1', 'twins@example.com', 'Oslo'],
        ['h-2', 'twins@example.com', 'Oslo'],
      ]),
    );
    expect((await sync(env, shared)).exitCode).toBe(0);
    const [contact] = await withEmail('twins@example.com');
    const apart = write(
      'apart.csv',
      crm([
        ['h-1', 'twins@example.com', 'Oslo'],
        ['h-2', 'apart@example.com', 'Oslo'],
      ]),
    );
    const res = await sync(env, apart, '--json');
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/the contact recorded for crm_id "h-2" is line 2's \(another key\): matched by email/);
    expect((await withEmail('twins@example.com')).map((c) => c.id)).toEqual([contact.id]);
    expect((await withEmail('apart@example.com')).map((c) => c.id)).not.toContain(contact.id);
    await fx.resetStats();
    expect((await sync(env, apart)).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(0);
    expect(readdirSync(join(env.CNV_CONFIG_DIR, 'ledger')).some((n) => n.endsWith('.ledger'))).toBe(true);
  });
});
