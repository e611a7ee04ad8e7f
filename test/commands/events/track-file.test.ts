import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const { write, reportPath, readReport } = batchFiles('cnv-files-');

const fx = useEmulator({}, { faults: true, stats: true });

const eventsNamed = async (event: string) =>
  (await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as Array<Record<string, any>>;

describe('cnv events track --file (in-process)', () => {
  it('running the same file twice records each event once; rows without clientEventId get a stable one', async () => {
    const path = write(
      'events.csv',
      [
        'event,email,userId,clientEventId,data.amount',
        `file_purchase,${FX.ada.email},,,10`,
        `file_purchase,${FX.ada.email},,,10`,
        `file_purchase,,user-grace,crm-77,5`,
        `file_purchase,ghost@example.com,,,1`,
        `,${FX.ada.email},,,1`,
      ].join('\n') + '\n',
    );
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
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ event: 'flaky_file', email: FX.grace.email, data: { i } }),
    );
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
    const dry = await cnvInProcess(['events', 'track', '--file', path, '--event', 'from_flag', '--dry-run'], {
      env: fx.env,
    });
    expect(dry.exitCode).toBe(0);
    expect((await fx.stats()).total).toBe(0);
    const res = await cnvInProcess(['events', 'track', '--file', path, '--event', 'from_flag'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(await eventsNamed('from_flag')).toHaveLength(1);
  });
});
