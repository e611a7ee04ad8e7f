import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const { write, reportPath, readReport } = batchFiles('cnv-files-');

const fx = useEmulator({}, { faults: true, stats: true });

const contactsByEmail = async (email: string) =>
  (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<Record<string, any>>;

describe('cnv contacts upsert --file (in-process)', () => {
  it('one request per row: created, updated in file order, invalid and failed rows reported', async () => {
    const path = write(
      'contacts.csv',
      [
        'email,subscriptionStatus,fields.city,fields.score,syncToCrm,updateOnly',
        'batch.one@example.com,subscribed,Paris,7,true,',
        'BATCH.ONE@example.com,,Rome,,,',
        'not-an-email,,,,,',
        'batch.two@example.com,unsubscribd,,,,',
        // no such contact, and updateOnly: the API refuses the row
        'batch.three@example.com,,,12,,true',
        'batch.four@example.com,no_status,"Saint-Denis, Réunion",3,,',
      ].join('\n') + '\n',
    );
    const report = reportPath();
    const res = await cnvInProcess(
      [
        'contacts',
        'upsert',
        '--file',
        path,
        '--report',
        report,
        '--field',
        'firstName=Batch',
        '--pass-column',
        'syncToCrm',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(6);
    const rows = readReport(report);
    expect(rows.map((r) => [r.line, r.status, r.error])).toEqual([
      ['2', 'created', ''],
      ['3', 'updated', ''],
      ['4', 'invalid', 'invalid_email'],
      ['5', 'invalid', 'invalid_subscription_status'],
      ['6', 'failed', 'contact_not_found'],
      ['7', 'created', ''],
    ]);
    const [one] = await contactsByEmail('batch.one@example.com');
    expect(one).toMatchObject({
      subscriptionStatus: 'SUBSCRIBED',
      fields: { city: 'Rome', score: 7, firstName: 'Batch' },
      sfdcLeadId: expect.stringMatching(/^00Q/),
    });
    expect(rows[0].cnvContactId).toBe(one.id);
    const [four] = await contactsByEmail('batch.four@example.com');
    expect(four).toMatchObject({ subscriptionStatus: 'NO_STATUS', fields: { city: 'Saint-Denis, Réunion', score: 3 } });
    expect((await fx.stats()).byRoute['POST /v2/contacts']).toBe(4);
  });

  it('many rows for the same contact apply in file order under concurrency', async () => {
    const lines = ['{"email":"ordered@example.com","fields":{"score":0}}'];
    for (let i = 1; i <= 60; i++)
      lines.push(
        JSON.stringify({ email: i % 2 ? 'ordered@example.com' : `other-${i}@example.com`, fields: { score: i } }),
      );
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--file', write('ordered.ndjson', lines.join('\n')), '--concurrency', '16'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    const [contact] = await contactsByEmail('ordered@example.com');
    expect(contact.fields.score).toBe(59);
  });

  it('a CSV whose header names no identifier column is refused at once (exit 2), unless --set gives one', async () => {
    const path = write('no-id.csv', ['name,phone', 'Ada,123', 'Linus,456'].join('\n'));
    const upsert = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(upsert.exitCode).toBe(2);
    expect(upsert.stderr).toContain(
      `${path} line 1: the header names none of the columns that identify a row: email (or Email Address, E-mail) or cnvContactId (or Contact ID, id); any case (it has: "name", "phone")`,
    );
    expect(upsert.stderr).toContain("hint: name one, or map one (--map 'Work Email=email')");
    const add = await cnvInProcess(['audience', 'add', 'c1000000-0000-4000-8000-000000000003', '--batch', path], {
      env: fx.env,
    });
    expect([add.exitCode, add.stderr]).toEqual([
      2,
      expect.stringContaining(
        'none of the columns that identify a row: cnvContactId (or Contact ID, id), userId (or User ID) or email',
      ),
    ]);
    const track = await cnvInProcess(['events', 'track', '--file', path, '--event', 'x'], { env: fx.env });
    expect([track.exitCode, track.stderr]).toEqual([
      2,
      expect.stringContaining('none of the columns that identify a row: userId (or User ID) or email'),
    ]);
    expect((await fx.stats()).total).toBe(0);
    // Any case counts; and a default identifier from --set lets the rows through to their own checks.
    const upper = write('upper.csv', ['EMAIL', 'header.case@example.com'].join('\n'));
    expect((await cnvInProcess(['contacts', 'upsert', '--file', upper], { env: fx.env })).exitCode).toBe(0);
    const withSet = await cnvInProcess(
      ['contacts', 'upsert', '--file', path, '--set', 'email=set.default@example.com', '--ignore-unknown-columns'],
      { env: fx.env },
    );
    expect(withSet.exitCode, withSet.stderr).toBe(0);
    // A --map names the identifier a header spells its own way.
    const mapped = await cnvInProcess(
      [
        'audience',
        'add',
        'c1000000-0000-4000-8000-000000000003',
        '--batch',
        write('work.csv', 'Work Email,name\nada@example.com,Ada\n'),
        '--map',
        'Work Email=email',
      ],
      { env: fx.env },
    );
    expect([mapped.exitCode, mapped.stderr], mapped.stderr).toEqual([
      0,
      expect.stringMatching(/name +-> not sent +\(not used: a batch add sends only the identifier\)/),
    ]);
  });

  it('single-mode identifier flags do not mix with --file', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', 'x.csv', '--email', FX.ada.email], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--file: each row names its contact; drop --email/);
  });

  it("a report an earlier cnv wrote (its account as host and masked key) still resumes; another key's is refused", async () => {
    const path = write('earlier.csv', 'email\nearlier.one@example.com\nearlier.two@example.com\n');
    const report = reportPath();
    expect(
      (await cnvInProcess(['contacts', 'upsert', '--file', path, '--report', report], { env: fx.env })).exitCode,
    ).toBe(0);
    const place = new URL(fx.env.CNV_BASE_URL).host;
    const text = readFileSync(report, 'utf8');
    expect(text).toContain(`""account"":""sk_live_demo@${place}""`);
    // The form a report had before the one account identity: `<host and path> <masked key>`.
    writeFileSync(report, text.replaceAll(`sk_live_demo@${place}`, `${place} sk_live_demo_****`));
    await fx.resetStats();
    const resumed = await cnvInProcess(['contacts', 'upsert', '--file', path, '--resume-from-report', report], {
      env: fx.env,
    });
    expect([resumed.exitCode, resumed.stderr]).toEqual([0, expect.stringContaining('2 succeeded')]);
    expect((await fx.stats()).byRoute['POST /v2/contacts']).toBeUndefined();
    writeFileSync(report, text.replaceAll(`sk_live_demo@${place}`, `${place} sk_live_basic_****`));
    const other = await cnvInProcess(['contacts', 'upsert', '--file', path, '--resume-from-report', report], {
      env: fx.env,
    });
    expect([other.exitCode, other.stderr]).toEqual([2, expect.stringContaining('report_mismatch')]);
  });
});
