import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { MAX_WRITE_BYTES } from '../../src/limits/limits.js';
import { batchFiles } from '../helpers/batch-files.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const { write, reportPath, readReport } = batchFiles('cnv-files-');

const fx = useEmulator({}, { faults: true, stats: true });

const contactsByEmail = async (email: string) =>
  (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<Record<string, any>>;
const eventsNamed = async (event: string) =>
  (await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as Array<Record<string, any>>;

describe('--resume-from-report cannot lie (in-process)', () => {
  const upserts = async () => (await fx.stats()).byRoute?.['POST /v2/contacts'] ?? 0;

  it('identical events of a JSON array on one line are two events, each stored', async () => {
    const event = { event: 'one_line_twice', email: FX.ada.email, data: { n: 1 } };
    const path = write('twice.json', JSON.stringify([event, event, { ...event, data: { n: 2 } }]));
    const report = reportPath();
    const res = await cnvInProcess(['events', 'track', '--file', path, '--report', report], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const rows = readReport(report);
    expect(rows.map((r) => [r.line, r.row, r.status])).toEqual([
      ['1', '1', 'tracked'],
      ['1', '2', 'tracked'],
      ['1', '3', 'tracked'],
    ]);
    expect(new Set(rows.map((r) => r.identifier)).size).toBe(3);
    expect(await eventsNamed('one_line_twice')).toHaveLength(3);
  });

  it("another command's, target's or input's report is refused (exit 2) before anything is sent", async () => {
    const path = write('people.csv', `email\n${FX.ada.email}\n${FX.grace.email}\n`);
    const added = reportPath();
    const audience = 'c1000000-0000-4000-8000-000000000002';
    expect(
      (await cnvInProcess(['audience', 'add', audience, '--batch', path, '--report', added], { env: fx.env })).exitCode,
    ).toBe(0);
    await fx.resetStats();
    const other = await cnvInProcess(['contacts', 'upsert', '--file', path, '--resume-from-report', added], {
      env: fx.env,
    });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain(
      `error: report_mismatch: --resume-from-report ${added}: it reports \`audience add ${audience}\` on ${path.split('/').pop()}, not \`contacts upsert\` on`,
    );
    const campaign = await cnvInProcess(
      ['campaigns', 'add', audience, '--batch', path, '--resume-from-report', added],
      { env: fx.env },
    );
    expect(campaign.exitCode).toBe(2);
    const renamed = write('others.csv', `email\n${FX.ada.email}\n${FX.grace.email}\n`);
    expect(
      (
        await cnvInProcess(['audience', 'add', audience, '--batch', renamed, '--resume-from-report', added], {
          env: fx.env,
        })
      ).exitCode,
    ).toBe(2);
    expect((await fx.stats()).total).toBe(0);
    // The same run resumes: nothing left to send.
    const same = await cnvInProcess(['audience', 'add', audience, '--batch', path, '--resume-from-report', added], {
      env: fx.env,
    });
    expect(same.exitCode).toBe(0);
    expect(same.stderr).toMatch(/2 rows: 2 succeeded .*2 of them done in an earlier run/);
    expect((await fx.stats()).total).toBe(0);
  });

  it('an edited row is sent again; rows unchanged are not', async () => {
    const email = 'resume-edit@example.com';
    const rows = (city: string) =>
      `email,fields.city\n${FX.ada.email},Rome\n${email},${city}\n${FX.grace.email},Oslo\n`;
    const path = write('edit.csv', rows('Paris'));
    const report = reportPath();
    expect(
      (await cnvInProcess(['contacts', 'upsert', '--file', path, '--report', report], { env: fx.env })).exitCode,
    ).toBe(0);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, rows('Berlin'));
    await fx.resetStats();
    const resumed = await cnvInProcess(
      ['contacts', 'upsert', '--file', path, '--report', report, '--resume-from-report', report],
      { env: fx.env },
    );
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
