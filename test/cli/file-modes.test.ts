import { describe, expect, it } from 'vitest';
import { MAX_WRITE_BYTES } from '../../src/http/body.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const { write, reportPath, readReport } = batchFiles('cnv-files-');

const fx = useEmulator({}, { faults: true, stats: true });

const contactsByEmail = async (email: string) => (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<Record<string, any>>;
const eventsNamed = async (event: string) => (await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as Array<Record<string, any>>;

describe('cnv contacts upsert --file (in-process)', () => {
  it('one request per row: created, updated in file order, invalid and failed rows reported', async () => {
    const path = write('contacts.csv', [
      'email,subscriptionStatus,fields.city,fields.score,syncToCrm,updateOnly',
      'batch.one@example.com,subscribed,Paris,7,true,',
      'BATCH.ONE@example.com,,Rome,,,',
      'not-an-email,,,,,',
      'batch.two@example.com,unsubscribd,,,,',
      // no such contact, and updateOnly: the API refuses the row
      'batch.three@example.com,,,12,,true',
      'batch.four@example.com,no_status,"Saint-Denis, Réunion",3,,',
    ].join('\n') + '\n');
    const report = reportPath();
    const res = await cnvInProcess(['contacts', 'upsert', '--file', path, '--report', report, '--field', 'firstName=Batch', '--pass-column', 'syncToCrm'], { env: fx.env });
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
    expect(one).toMatchObject({ subscriptionStatus: 'SUBSCRIBED', fields: { city: 'Rome', score: 7, firstName: 'Batch' }, sfdcLeadId: expect.stringMatching(/^00Q/) });
    expect(rows[0].cnvContactId).toBe(one.id);
    const [four] = await contactsByEmail('batch.four@example.com');
    expect(four).toMatchObject({ subscriptionStatus: 'NO_STATUS', fields: { city: 'Saint-Denis, Réunion', score: 3 } });
    expect((await fx.stats()).byRoute['POST /v2/contacts']).toBe(4);
  });

  it('many rows for the same contact apply in file order under concurrency', async () => {
    const lines = ['{"email":"ordered@example.com","fields":{"score":0}}'];
    for (let i = 1; i <= 60; i++) lines.push(JSON.stringify({ email: i % 2 ? 'ordered@example.com' : `other-${i}@example.com`, fields: { score: i } }));
    const res = await cnvInProcess(['contacts', 'upsert', '--file', write('ordered.ndjson', lines.join('\n')), '--concurrency', '16'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const [contact] = await contactsByEmail('ordered@example.com');
    expect(contact.fields.score).toBe(59);
  });

  it('a CSV whose header names no identifier column is refused at once (exit 2), unless --set gives one', async () => {
    const path = write('no-id.csv', ['name,phone', 'Ada,123', 'Linus,456'].join('\n'));
    const upsert = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(upsert.exitCode).toBe(2);
    expect(upsert.stderr).toContain(`${path} line 1: the header names none of the columns that identify a row: email (or Email Address, E-mail) or cnvContactId (or Contact ID, id); any case (it has: "name", "phone")`);
    expect(upsert.stderr).toContain("hint: name one, or map one (--map 'Work Email=email')");
    const add = await cnvInProcess(['audience', 'add', 'c1000000-0000-4000-8000-000000000003', '--batch', path], { env: fx.env });
    expect([add.exitCode, add.stderr]).toEqual([2, expect.stringContaining('none of the columns that identify a row: cnvContactId (or Contact ID, id), userId (or User ID) or email')]);
    const track = await cnvInProcess(['events', 'track', '--file', path, '--event', 'x'], { env: fx.env });
    expect([track.exitCode, track.stderr]).toEqual([2, expect.stringContaining('none of the columns that identify a row: userId (or User ID) or email')]);
    expect((await fx.stats()).total).toBe(0);
    // Any case counts; and a default identifier from --set lets the rows through to their own checks.
    const upper = write('upper.csv', ['EMAIL', 'header.case@example.com'].join('\n'));
    expect((await cnvInProcess(['contacts', 'upsert', '--file', upper], { env: fx.env })).exitCode).toBe(0);
    const withSet = await cnvInProcess(['contacts', 'upsert', '--file', path, '--set', 'email=set.default@example.com', '--ignore-unknown-columns'], { env: fx.env });
    expect(withSet.exitCode, withSet.stderr).toBe(0);
    // A --map names the identifier a header spells its own way.
    const mapped = await cnvInProcess(['audience', 'add', 'c1000000-0000-4000-8000-000000000003', '--batch', write('work.csv', 'Work Email,name\nada@example.com,Ada\n'), '--map', 'Work Email=email'], { env: fx.env });
    expect([mapped.exitCode, mapped.stderr], mapped.stderr).toEqual([0, expect.stringMatching(/name +-> not sent +\(not used: a batch add sends only the identifier\)/)]);
  });

  it('single-mode identifier flags do not mix with --file', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', 'x.csv', '--email', FX.ada.email], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--file: each row names its contact; drop --email/);
  });
});

describe('cnv events track --file (in-process)', () => {
  it('running the same file twice records each event once; rows without clientEventId get a stable one', async () => {
    const path = write('events.csv', [
      'event,email,userId,clientEventId,data.amount',
      `file_purchase,${FX.ada.email},,,10`,
      `file_purchase,${FX.ada.email},,,10`,
      `file_purchase,,user-grace,crm-77,5`,
      `file_purchase,ghost@example.com,,,1`,
      `,${FX.ada.email},,,1`,
    ].join('\n') + '\n');
    const report1 = reportPath();
    const first = await cnvInProcess(['events', 'track', '--file', path, '--report', report1], { env: fx.env });
    expect(first.exitCode).toBe(6);
    const rows1 = readReport(report1);
    expect(rows1.map((r) => [r.line, r.status, r.error])).toEqual([
      ['2', 'tracked', ''],
      ['3', 'tracked', ''],
      ['4', 'tracked', ''],
      ['5', 'failed', 'contact_not_found'],
      ['6', 'invalid', 'invalid_request'],
    ]);
    // Identical rows on different lines are different events.
    expect(rows1[0].identifier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rows1[0].identifier).not.toBe(rows1[1].identifier);
    expect(rows1[2].identifier).toBe('crm-77');
    expect(await eventsNamed('file_purchase')).toHaveLength(3);

    const report2 = reportPath();
    const second = await cnvInProcess(['events', 'track', '--file', path, '--report', report2], { env: fx.env });
    expect(second.exitCode).toBe(6);
    const rows2 = readReport(report2);
    expect(rows2.slice(0, 3).map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(rows2.map((r) => r.identifier)).toEqual(rows1.map((r) => r.identifier));
    const stored = await eventsNamed('file_purchase');
    expect(stored).toHaveLength(3);
    expect(stored[0]).toMatchObject({ contactId: FX.ada.id, data: { amount: 10 }, clientEventId: rows1[0].identifier });
  });

  it('a flaky emulator: retried rows keep their clientEventId, so every event lands once', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ event: 'flaky_file', email: FX.grace.email, data: { i } }));
    const path = write('flaky.ndjson', lines.join('\n') + '\n');
    await fx.faults({ dropAfterNext: 3, failRate: 0.2 });
    const res = await cnvInProcess(['events', 'track', '--file', path, '--max-retries', '10'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const stored = await eventsNamed('flaky_file');
    expect(stored).toHaveLength(40);
    expect(new Set(stored.map((e) => e.data.i)).size).toBe(40);
  });

  it('--event gives rows without one their name; --dry-run sends nothing', async () => {
    const path = write('named.ndjson', `{"email":"${FX.ada.email}"}\n`);
    const dry = await cnvInProcess(['events', 'track', '--file', path, '--event', 'from_flag', '--dry-run'], { env: fx.env });
    expect(dry.exitCode).toBe(0);
    expect((await fx.stats()).total).toBe(0);
    const res = await cnvInProcess(['events', 'track', '--file', path, '--event', 'from_flag'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(await eventsNamed('from_flag')).toHaveLength(1);
  });
});

describe('--resume-from-report cannot lie (in-process)', () => {
  const upserts = async () => (await fx.stats()).byRoute?.['POST /v2/contacts'] ?? 0;

  it('identical events of a JSON array on one line are two events, each stored', async () => {
    const event = { event: 'one_line_twice', email: FX.ada.email, data: { n: 1 } };
    const path = write('twice.json', JSON.stringify([event, event, { ...event, data: { n: 2 } }]));
    const report = reportPath();
    const res = await cnvInProcess(['events', 'track', '--file', path, '--report', report], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const rows = readReport(report);
    expect(rows.map((r) => [r.line, r.row, r.status])).toEqual([['1', '1', 'tracked'], ['1', '2', 'tracked'], ['1', '3', 'tracked']]);
    expect(new Set(rows.map((r) => r.identifier)).size).toBe(3);
    expect(await eventsNamed('one_line_twice')).toHaveLength(3);
  });

  it("another command's, target's or input's report is refused (exit 2) before anything is sent", async () => {
    const path = write('people.csv', `email\n${FX.ada.email}\n${FX.grace.email}\n`);
    const added = reportPath();
    const audience = 'c1000000-0000-4000-8000-000000000002';
    expect((await cnvInProcess(['audience', 'add', audience, '--batch', path, '--report', added], { env: fx.env })).exitCode).toBe(0);
    await fx.resetStats();
    const other = await cnvInProcess(['contacts', 'upsert', '--file', path, '--resume-from-report', added], { env: fx.env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain(`error: report_mismatch: --resume-from-report ${added}: it reports \`audience add ${audience}\` on ${path.split('/').pop()}, not \`contacts upsert\` on`);
    const campaign = await cnvInProcess(['campaigns', 'add', audience, '--batch', path, '--resume-from-report', added], { env: fx.env });
    expect(campaign.exitCode).toBe(2);
    const renamed = write('others.csv', `email\n${FX.ada.email}\n${FX.grace.email}\n`);
    expect((await cnvInProcess(['audience', 'add', audience, '--batch', renamed, '--resume-from-report', added], { env: fx.env })).exitCode).toBe(2);
    expect((await fx.stats()).total).toBe(0);
    // The same run resumes: nothing left to send.
    const same = await cnvInProcess(['audience', 'add', audience, '--batch', path, '--resume-from-report', added], { env: fx.env });
    expect(same.exitCode).toBe(0);
    expect(same.stderr).toMatch(/2 rows: 2 succeeded .*2 of them done in an earlier run/);
    expect((await fx.stats()).total).toBe(0);
  });

  it('an edited row is sent again; rows unchanged are not', async () => {
    const email = 'resume-edit@example.com';
    const rows = (city: string) => `email,fields.city\n${FX.ada.email},Rome\n${email},${city}\n${FX.grace.email},Oslo\n`;
    const path = write('edit.csv', rows('Paris'));
    const report = reportPath();
    expect((await cnvInProcess(['contacts', 'upsert', '--file', path, '--report', report], { env: fx.env })).exitCode).toBe(0);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, rows('Berlin'));
    await fx.resetStats();
    const resumed = await cnvInProcess(['contacts', 'upsert', '--file', path, '--report', report, '--resume-from-report', report], { env: fx.env });
    expect(resumed.exitCode).toBe(0);
    expect(await upserts()).toBe(1);
    expect((await contactsByEmail(email))[0].fields.city).toBe('Berlin');
    expect(readReport(report).map((r) => [r.line, r.status, r.message])).toEqual([
      ['2', 'updated', 'done in an earlier run (--resume-from-report)'],
      ['3', 'updated', ''],
      ['4', 'updated', 'done in an earlier run (--resume-from-report)'],
    ]);
  });
});

describe('what cnv writes, cnv reads back (in-process)', () => {
  it('the largest field value contacts upsert --file writes (10 MiB): contacts get and export contacts read it back', async () => {
    const email = 'huge-field@example.com';
    const value = 'v'.repeat(MAX_WRITE_BYTES - 1024);
    const path = write('huge.ndjson', `${JSON.stringify({ email, fields: { city: value } })}\n`);
    expect((await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env })).exitCode).toBe(0);
    const got = await cnvInProcess(['contacts', 'get', '--email', email], { env: fx.env });
    expect(got.exitCode, got.stderr.slice(0, 300)).toBe(0);
    expect(JSON.parse(got.stdout).fields.city).toHaveLength(value.length);
    // Before: every later export failed here, response_too_large with the hint "check --base-url".
    const exported = await cnvInProcess(['export', 'contacts', '--no-state'], { env: fx.env });
    expect(exported.exitCode, exported.stderr.slice(0, 300)).toBe(0);
    const row = exported.stdout.split('\n').find((line) => line.includes(email));
    // (Export rows name fields by their label.)
    expect((JSON.parse(row!) as { fields: { City: string } }).fields.City).toHaveLength(value.length);
  });
});
