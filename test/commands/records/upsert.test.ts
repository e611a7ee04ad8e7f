import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS, FIXTURE_CUSTOM_OBJECT as CO } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { emulatorFixture } from '../../helpers/emulator.js';
import { reportCsv, reportRows } from '../../helpers/batch-files.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let dir: string;
beforeAll(async () => {
  fx = await emulatorFixture();
  dir = tempConfigDir();
});
afterAll(() => fx.close());
beforeEach(async () => {
  await fx.clearFaults();
  await fx.resetStats();
});

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const upsert = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  cnvInProcess(['records', 'upsert', CO.id, ...args], { env: { ...fx.env, ...opts.env }, input: opts.input });
const records = async (prefix: string) =>
  ((await fx.admin('GET', `/_emulator/state/records?customObjectId=${CO.id}`)) as any[]).filter((r) =>
    r.clientDedupKey.startsWith(prefix),
  );
const recordOf = async (key: string) =>
  (
    await fx.admin('GET', `/_emulator/state/records?customObjectId=${CO.id}&clientDedupKey=${encodeURIComponent(key)}`)
  )[0];
const parseReport = (text: string) => {
  expect(reportCsv(text).split('\n')[0]).toBe('line,identifier,status,id,error,message,row,hash,job');
  return reportRows<Record<string, string>>(text).map((r) => ({ ...r, line: Number(r.line) }));
};
const BATCH_ROUTE = 'POST /v2/custom-objects/:customObjectId/records/batch';
const batchRequests = async () => (await fx.stats()).byRoute?.[BATCH_ROUTE] ?? 0;

describe('cnv records upsert (in-process)', () => {
  it('applies 5,000 rows whose keys recur across concurrent chunks so that the last row per key wins, despite retried chunks', async () => {
    const header = 'clientDedupKey,planName,seats,autoRenew,startDate,renewedAt';
    const rows: string[] = [];
    const expected = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < 5000; i++) {
      const key = `bulk-${(i * 37) % 250}`;
      const day = String((i % 28) + 1).padStart(2, '0');
      const cells = {
        planName: `plan-${i}`,
        seats: String(i),
        autoRenew: i % 2 === 0 ? 'true' : 'no',
        startDate: `2025-03-${day}`,
        renewedAt: `2025-04-${day}T10:00:${String(i % 60).padStart(2, '0')}Z`,
      };
      // Every 7th row leaves two cells empty: those fields keep their earlier value.
      if (i % 7 === 3) Object.assign(cells, { planName: '', renewedAt: '' });
      rows.push([key, cells.planName, cells.seats, cells.autoRenew, cells.startDate, cells.renewedAt].join(','));
      const state = expected.get(key) ?? {};
      if (cells.planName) state.planName = cells.planName;
      state.seats = i;
      state.autoRenew = i % 2 === 0;
      state.startDate = cells.startDate;
      if (cells.renewedAt) state.renewedAt = cells.renewedAt;
      expected.set(key, state);
    }
    const path = file('bulk.csv', [header, ...rows].join('\n') + '\n');
    // Random chunks fail and are retried after a backoff while later chunks holding the same keys are ready.
    await fx.faults({ failRate: 0.2 });
    const report = join(dir, 'bulk-report.csv');
    const res = await upsert([
      '--file',
      path,
      '--report',
      report,
      '--concurrency',
      '8',
      '--max-retries',
      '10',
      '--json',
    ]);
    await fx.clearFaults();
    expect(res.stderr).toMatch(
      /5000 rows: 5000 succeeded \(created 250, updated 4750\), 0 failed, 0 invalid, 0 skipped/,
    );
    expect(res.exitCode).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ rows: 5000, succeeded: 5000, failed: 0, exitCode: 0 });

    const results = parseReport(readFileSync(report, 'utf8'));
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 2));
    const stored = await records('bulk-');
    expect(stored).toHaveLength(250);
    for (const r of stored) expect(r.fields).toEqual(expected.get(r.clientDedupKey));
    const byStatus = (await fx.stats()).byRouteStatus[BATCH_ROUTE];
    expect(byStatus['200']).toBe(25);
    expect(await batchRequests()).toBe(25 + (byStatus['500'] ?? 0));
  }, 20_000);

  it('coerces every data type from CSV and makes rows that do not coerce invalid, with line and reason, never sent', async () => {
    const path = file(
      'types.csv',
      [
        'clientDedupKey,planName,seats,autoRenew,startDate,renewedAt',
        'ty-1,007,42,yes,2025-01-31,2025-02-01 10:00:00Z',
        'ty-2,Pro,-1.5e1,FALSE,2024-02-29,2025-02-01T10:00:00.250+02:00',
        'ty-3,Team,1 000,maybe,2025-02-30,2025-02-01T10:00:00',
        'ty-4,Basic,0,0,,',
      ].join('\n') + '\n',
    );
    const res = await upsert(['--file', path, '--report', '-']);
    expect(res.exitCode).toBe(6);
    const report = parseReport(res.stdout);
    expect(report.map((r) => [r.line, r.identifier, r.status])).toEqual([
      [2, 'ty-1', 'created'],
      [3, 'ty-2', 'created'],
      [4, 'ty-3', 'invalid'],
      [5, 'ty-4', 'created'],
    ]);
    expect(report[2].error).toBe('invalid_field');
    expect(report[2].message).toBe(
      [
        'field "seats" (NUMBER): "1 000" is not a number',
        'field "autoRenew" (BOOLEAN): "maybe" is not a boolean (true/false, yes/no, 1/0)',
        'field "startDate" (DATE): "2025-02-30" is not a date YYYY-MM-DD',
        'field "renewedAt" (DATETIME): "2025-02-01T10:00:00" is not an ISO 8601 date-time with a zone (like 2025-03-01T12:00:00Z)',
      ].join('; '),
    );
    expect((await recordOf('ty-1')).fields).toEqual({
      planName: '007',
      seats: 42,
      autoRenew: true,
      startDate: '2025-01-31',
      renewedAt: '2025-02-01T10:00:00Z',
    });
    expect((await recordOf('ty-2')).fields).toEqual({
      planName: 'Pro',
      seats: -15,
      autoRenew: false,
      startDate: '2024-02-29',
      renewedAt: '2025-02-01T10:00:00.250+02:00',
    });
    expect((await recordOf('ty-4')).fields).toEqual({ planName: 'Basic', seats: 0, autoRenew: false });
    expect(await recordOf('ty-3')).toBeUndefined();
    expect(res.stderr).toMatch(/4 rows: 3 succeeded \(created 3\), 0 failed, 1 invalid/);
  });

  it('reads NDJSON (flat or with a fields object) from stdin and JSON arrays, keeping typed values and null', async () => {
    const ndjson = [
      JSON.stringify({ clientDedupKey: 'nd-1', seats: 3, autoRenew: 'y', planName: 'A' }),
      JSON.stringify({ clientDedupKey: 'nd-1', fields: { planName: null, startDate: '2025-05-05' } }),
      'not json',
      JSON.stringify({ seats: 1 }),
    ].join('\n');
    const res = await upsert(['--file', '-', '--report', '-'], { input: ndjson });
    expect(res.exitCode).toBe(6);
    expect(parseReport(res.stdout).map((r) => [r.line, r.status, r.error])).toEqual([
      [1, 'created', ''],
      [2, 'updated', ''],
      [3, 'invalid', 'malformed_row'],
      [4, 'invalid', 'missing_identifier'],
    ]);
    expect((await recordOf('nd-1')).fields).toEqual({ seats: 3, autoRenew: true, startDate: '2025-05-05' });

    const path = file('arr.json', JSON.stringify([{ clientDedupKey: 'js-1', fields: { seats: '8' } }]));
    const arr = await upsert(['--file', path]);
    expect(arr.exitCode).toBe(0);
    expect((await recordOf('js-1')).fields).toEqual({ seats: 8 });
  });

  it('reports relationships to missing targets as pending, resolves existing ones, and never creates targets', async () => {
    const path = file(
      'rel.csv',
      [
        'clientDedupKey,subscriber,parentSubscription',
        `rel-1,${FIXTURE_CONTACTS.grace.email},sub-ada`,
        'rel-2,ghost@example.com,no-such-record',
        'rel-3,user-ada,',
      ].join('\n') + '\n',
    );
    const res = await upsert(['--file', path, '--report', '-']);
    expect(res.exitCode).toBe(0);
    const report = parseReport(res.stdout);
    expect(report[0]).toMatchObject({ status: 'created', message: '' });
    expect(report[1]).toMatchObject({
      status: 'created',
      message: 'pending relationships (target not found yet): subscriber, parentSubscription',
    });
    expect(report[2]).toMatchObject({ status: 'created', message: '' });
    expect((await recordOf('rel-1')).relationships).toEqual({
      subscriber: FIXTURE_CONTACTS.grace.id,
      parentSubscription: 'd0000000-0000-4000-8000-000000000001',
    });
    expect((await recordOf('rel-2')).pendingRelationships).toEqual({
      subscriber: 'ghost@example.com',
      parentSubscription: 'no-such-record',
    });
    expect(await fx.admin('GET', '/_emulator/state/contacts?email=ghost@example.com')).toEqual([]);

    // The reverse side, read with the CLI: grace lists the records that name her.
    const grace = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.grace.email, '--json'], {
      env: fx.env,
    });
    expect(JSON.parse(grace.stdout).fields.subscriptions).toBe('sub-grace;rel-1');
    // The missing targets appear: the pending relationships resolve, on the record and on the reverse side.
    expect((await cnvInProcess(['contacts', 'upsert', '--email', 'ghost@example.com'], { env: fx.env })).exitCode).toBe(
      0,
    );
    expect(
      (await upsert(['--file', file('rel-2.csv', 'clientDedupKey,planName\nno-such-record,Late\n')])).exitCode,
    ).toBe(0);
    expect((await recordOf('rel-2')).pendingRelationships).toEqual({});
    expect((await recordOf('no-such-record')).fields.childSubscriptions).toBe('rel-2');
    const ghost = await cnvInProcess(['contacts', 'get', '--email', 'ghost@example.com', '--json'], { env: fx.env });
    expect(JSON.parse(ghost.stdout).fields).toEqual({ subscriptions: 'rel-2' });
  });

  it('--check compares columns with the definitions and sends nothing; --dry-run prints the requests a run would send', async () => {
    const path = file(
      'check.csv',
      [
        'clientDedupKey,Seats,nope,syncedAt,planName',
        'ch-1,1,,,x',
        'ch-2,two,y,,x',
        'ch-3,3,,2025-01-01T00:00:00Z,x',
      ].join('\n') + '\n',
    );
    const res = await upsert(['--file', path, '--check']);
    expect(res.exitCode).toBe(6);
    const report = JSON.parse(res.stdout);
    expect(report).toMatchObject({ ok: false, rows: 3, validRows: 2, invalidRows: 1 });
    expect(report.columns).toEqual([
      { column: 'clientDedupKey', status: 'key', dataType: null, mismatches: 0, example: null },
      {
        column: 'Seats',
        status: 'mismatch',
        dataType: 'NUMBER',
        mismatches: 1,
        example: 'line 3: field "seats" (NUMBER): "two" is not a number',
      },
      { column: 'nope', status: 'unknown', dataType: null, mismatches: 0, example: null },
      // A read-only field is recognised and not sent (as a run leaves it out): its rows stay valid.
      { column: 'syncedAt', status: 'read-only', dataType: 'DATETIME', mismatches: 0, example: null },
      { column: 'planName', status: 'ok', dataType: 'STRING', mismatches: 0, example: null },
    ]);
    expect(report.problems).toEqual(['line 3: field "seats" (NUMBER): "two" is not a number; unknown field "nope"']);
    expect(res.stderr).toMatch(/dry run, nothing sent: 3 rows: 2 valid, 0 failed, 1 invalid/);
    expect(await batchRequests()).toBe(0);

    // A real run refuses the unknown column before sending; --dry-run shows each request's body.
    const refused = await upsert(['--file', path]);
    expect([refused.exitCode, refused.stderr]).toEqual([
      2,
      expect.stringContaining(
        'a column that names nothing POST /v2/custom-objects/c0000000-0000-4000-8000-000000000001/records/batch takes: "nope"',
      ),
    ]);
    const dry = await upsert(['--file', path, '--dry-run', '--ignore-column', 'nope', '--chunk-size', '1']);
    expect(dry.exitCode).toBe(6);
    expect(
      dry.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        dryRun: true,
        method: 'POST',
        path: '/v2/custom-objects/c0000000-0000-4000-8000-000000000001/records/batch',
        lines: [2],
        body: { records: [{ clientDedupKey: 'ch-1', fields: { seats: 1, planName: 'x' } }] },
      },
      {
        dryRun: true,
        method: 'POST',
        path: '/v2/custom-objects/c0000000-0000-4000-8000-000000000001/records/batch',
        lines: [4],
        body: { records: [{ clientDedupKey: 'ch-3', fields: { seats: 3, planName: 'x' } }] },
      },
    ]);
    expect(dry.stderr).toMatch(/syncedAt +-> not sent +\(read-only field fields\.syncedAt\)/);
    expect(await batchRequests()).toBe(0);
    expect(await recordOf('ch-1')).toBeUndefined();

    const clean = file('clean.csv', 'clientDedupKey,seats\nok-1,1\n');
    const ok = await upsert(['--file', clean, '--check', '-o', 'json']);
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, rows: 1, validRows: 1, invalidRows: 0 });
  });

  it('--no-coerce sends strings as they are (the API refuses them per record), --empty-cells null clears', async () => {
    const path = file('raw.csv', 'clientDedupKey,seats,planName\nraw-1,5,Pro\n');
    const res = await upsert(['--file', path, '--no-coerce', '--report', '-']);
    expect(res.exitCode).toBe(6);
    expect(parseReport(res.stdout)[0]).toMatchObject({ status: 'failed', error: 'invalid_field' });
    expect(res.stdout).toMatch(/NUMBER/);

    await upsert(['--file', file('set.csv', 'clientDedupKey,seats,planName\nclr-1,5,Pro\n')]);
    const cleared = await upsert([
      '--file',
      file('clear.csv', 'clientDedupKey,seats,planName\nclr-1,,Team\n'),
      '--empty-cells',
      'NULL',
    ]);
    expect(cleared.exitCode).toBe(0);
    expect((await recordOf('clr-1')).fields).toEqual({ planName: 'Team' });
  });

  it('stops with exit 7 when chunks keep failing, and --resume-from-report sends only what is missing', async () => {
    // STRING values only, so --no-coerce (no definitions read) sends them right; every request then meets the faults.
    const path = file(
      'resume.csv',
      ['clientDedupKey,planName', ...Array.from({ length: 450 }, (_, i) => `res-${i},p${i}`)].join('\n') + '\n',
    );
    const report = join(dir, 'resume-report.csv');
    await fx.faults({ failNext: 100 });
    const failed = await upsert([
      '--file',
      path,
      '--no-coerce',
      '--report',
      report,
      '--max-retries',
      '0',
      '--concurrency',
      '1',
    ]);
    expect(failed.exitCode).toBe(7);
    expect(failed.stderr).toMatch(/--resume-from-report/);
    expect(parseReport(readFileSync(report, 'utf8')).every((r) => r.status === 'skipped')).toBe(true);
    await fx.clearFaults();

    const partial = file(
      'resume-partial.csv',
      readFileSync(report, 'utf8').replace(
        /^2,res-0,skipped,.*,(1),([0-9a-f]{16}),(".*")$/m,
        '2,res-0,created,x,,,$1,$2,$3',
      ),
    );
    await fx.resetStats();
    const resumed = await upsert(['--file', path, '--no-coerce', '--resume-from-report', partial, '--report', report]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toMatch(/450 rows: 450 succeeded .*1 of them done in an earlier run/);
    expect((await records('res-')).length).toBe(449);
    expect(await batchRequests()).toBe(3);
  });

  it.each([
    [['nope', '--file', 'x.csv'], 2, /customObjectId: expected a UUID/],
    [[CO.id], 2, /--file: required/],
    [[CO.id, '--file', '/no/such/file.csv'], 2, /no such file/],
    [[CO.id, '--file', 'x.csv', '--empty-cells', 'zero'], 2, /--empty-cells.*expected one of skip, null/],
    [[CO.id, '--file', 'x.csv', '--chunk-size', '201'], 2, /--chunk-size/],
  ])('refuses bad input locally with exit 2: %j', async (args, code, message) => {
    const res = await cnvInProcess(['records', 'upsert', ...args], { env: fx.env });
    expect(res.exitCode).toBe(code);
    expect(res.stderr).toMatch(message);
    expect((await fx.stats()).total).toBe(0);
  });

  it('an unknown custom object (no definitions listed: a warning, no coercion) exits 5 at the first chunk; a key without edit-records access exits 4', async () => {
    const path = file('perm.csv', 'clientDedupKey,seats\nperm-1,1\n');
    const missing = await cnvInProcess(['records', 'upsert', 'c0000000-0000-4000-8000-0000000000ff', '--file', path], {
      env: fx.env,
    });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(
      /warning: no field definitions are listed for custom object c0000000-0000-4000-8000-0000000000ff/,
    );
    expect(missing.stderr).toMatch(/custom_object_not_found/);
    const limited = await upsert(['--file', path, '--report', '-'], { env: { CNV_API_KEY: fx.emulator.keys.limited } });
    expect(limited.exitCode).toBe(4);
    expect(limited.stderr).toMatch(/forbidden/);
    expect(parseReport(limited.stdout)[0]).toMatchObject({ status: 'skipped', error: 'forbidden' });
    expect(await recordOf('perm-1')).toBeUndefined();
  });

  it('--help has an example; its whole page (`cnv help`) names the formats and the ordering guarantee', async () => {
    const page = await cnvInProcess(['records', 'upsert', '--help']);
    expect(page.exitCode).toBe(0);
    expect(page.stdout).toMatch(
      /\$ cnv records upsert c0000000-0000-4000-8000-000000000001 --file subscriptions.csv --check/,
    );
    const res = await cnvInProcess(['help', 'records', 'upsert']);
    expect(res.stdout.replace(/\s+/g, ' ')).toMatch(
      /rows sharing a clientDedupKey are applied in file order even across chunks/,
    );
  });
});
