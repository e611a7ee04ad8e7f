import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES as AU,
  FIXTURE_CAMPAIGNS as CA,
  FIXTURE_CONTACTS as FX,
} from '../../src/emulator/seed/fixtures.js';
import { batchFiles, reportRows } from '../helpers/batch-files.js';
import { BIN, cnv, cnvInProcess } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let contacts: Array<{ id: string; email: string; userId: string | null }>;
const { dir, write, reportPath, readReport } = batchFiles();

beforeAll(async () => {
  fx = await emulatorFixture();
  contacts = await fx.admin('GET', '/_emulator/state/contacts');
});
afterAll(() => fx.close());
beforeEach(async () => {
  await fx.clearFaults();
  await fx.admin('POST', '/_emulator/reset');
  await fx.resetStats();
});

const members = async (id: string) => (await fx.admin('GET', `/_emulator/state/audiences/${id}`)).memberIds as string[];
const campaignMembers = async (id: string) =>
  ((await fx.admin('GET', `/_emulator/state/campaigns/${id}`)).members as Array<{ contactId: string }>).map(
    (m) => m.contactId,
  );

/** n rows of cnvContactIds from the seeded contacts, one header line: row i sits on line i + 2. */
function idFile(n: number, name = 'ids.csv'): { path: string; ids: string[] } {
  const ids = contacts.slice(0, n).map((c) => c.id);
  return { path: write(name, `cnvContactId\n${ids.join('\n')}\n`), ids };
}

describe('audience add --batch', () => {
  it('2,500 rows with bad rows mixed in: the report accounts for every line, and valid rows are added once', async () => {
    const lines: string[] = ['email,cnvContactId,userId,note'];
    const expected = new Map<number, string>(); // line -> status
    let line = 2;
    for (let i = 0; i < 2500; i++) {
      const c = contacts[i % contacts.length];
      let row: string;
      let status = 'added';
      if (i % 97 === 5) [row, status] = [`not-an-email-${i},,,x`, 'invalid'];
      else if (i % 97 === 6) [row, status] = [',,,no identifier at all', 'invalid'];
      else if (i % 97 === 7) [row, status] = [`ghost-${i}@example.com,,,x`, 'failed'];
      else if (i % 3 === 0) row = `,${c.id},,"quoted, with a comma"`;
      else if (i % 3 === 1 && c.userId) row = `,,${c.userId},"two\nlines"`;
      else row = `,${c.id},,plain`;
      expected.set(line, status);
      lines.push(row);
      line += row.split('\n').length;
    }
    const path = write('big.csv', lines.join('\n') + '\n');
    const report = reportPath();
    const started = Date.now();
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path, '--report', report, '--json'], {
      env: fx.env,
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.exitCode).toBe(6);
    const rows = readReport(report);
    expect(rows).toHaveLength(2500);
    expect(new Map(rows.map((r) => [Number(r.line), r.status]))).toEqual(expected);
    const bad = rows.filter((r) => r.status !== 'added');
    expect(bad.find((r) => r.status === 'invalid' && r.error === 'invalid_email')).toMatchObject({
      message: expect.stringMatching(/^email: expected an email address/),
    });
    expect(bad.find((r) => r.status === 'invalid' && r.error === 'missing_identifier')).toMatchObject({
      identifier: '',
    });
    expect(bad.find((r) => r.status === 'failed')).toMatchObject({ error: 'contact_not_found' });
    // Every added row's contact is a member, exactly once.
    const added = new Set(rows.filter((r) => r.status === 'added').map((r) => r.cnvContactId));
    expect(new Set(await members(AU.followUp.id))).toEqual(added);
    expect(await members(AU.followUp.id)).toHaveLength(added.size);
    // Three batch requests of at most 1000 contacts; invalid rows were never sent.
    const stats = await fx.stats();
    expect(stats.byRoute['POST /v2/audiences/:audienceId/contacts/batch']).toBe(3);
    const summary = JSON.parse(res.stdout);
    const counts = (s: string) => [...expected.values()].filter((v) => v === s).length;
    expect(summary).toMatchObject({
      rows: 2500,
      succeeded: counts('added'),
      failed: counts('failed'),
      invalid: counts('invalid'),
      skipped: 0,
      exitCode: 6,
    });
    expect(res.stderr).toMatch(
      /^2500 rows: \d+ succeeded \(added \d+\), \d+ failed, \d+ invalid, 0 skipped in (\d+ ms|[\d.]+ s \(\d+ rows\/s\)); report: /m,
    );
  });

  it('a file with a BOM and quoted fields holding commas, quotes and newlines', async () => {
    const path = write(
      'bom.csv',
      `\uFEFF"email","comment"\r\n"${FX.ada.email}","Hello, ""world"""\r\n"${FX.grace.email}","line one\r\nline two, still one field"\r\n${FX.linus.email},last\r\n`,
    );
    const report = reportPath();
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path, '--report', report], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    expect(readReport(report).map((r) => [r.line, r.identifier, r.status, r.cnvContactId])).toEqual([
      ['2', FX.ada.email, 'added', FX.ada.id],
      ['3', FX.grace.email, 'added', FX.grace.id],
      ['5', FX.linus.email, 'added', FX.linus.id],
    ]);
  });

  it('against a flaky emulator (500s, dropped answers) every row still ends up added exactly once', async () => {
    const { path, ids } = idFile(1000);
    await fx.faults({ failRate: 0.2, dropAfterNext: 2 });
    const report = reportPath();
    const res = await cnvInProcess(
      [
        'audience',
        'add',
        AU.followUp.id,
        '--batch',
        path,
        '--chunk-size',
        '100',
        '--report',
        report,
        '--max-retries',
        '10',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(readReport(report).every((r) => r.status === 'added')).toBe(true);
    const got = await members(AU.followUp.id);
    expect(got).toHaveLength(1000);
    expect(new Set(got)).toEqual(new Set(ids));
    const stats = await fx.stats();
    expect(stats.total).toBeGreaterThanOrEqual(12); // 10 chunks, and at least the 2 dropped answers were retried
  });

  it('retries exhausted: exit 7, the report holds every row; --resume-from-report sends only the rest', async () => {
    const { path, ids } = idFile(300);
    const report = reportPath();
    // Two chunks go out at once; one fails for good, the other lands; the third is never sent.
    await fx.faults({ failNext: 1, latencyMs: 150 });
    const first = await cnvInProcess(
      [
        'audience',
        'add',
        AU.followUp.id,
        '--batch',
        path,
        '--chunk-size',
        '100',
        '--concurrency',
        '2',
        '--max-retries',
        '0',
        '--report',
        report,
      ],
      { env: fx.env },
    );
    expect(first.exitCode).toBe(7);
    expect(first.stderr).toMatch(/^error: internal_error: the run stopped: /m);
    expect(first.stderr).toMatch(/--resume-from-report/);
    const before = readReport(report);
    expect(before).toHaveLength(300);
    expect(before.filter((r) => r.status === 'added')).toHaveLength(100);
    expect(before.filter((r) => r.status === 'skipped' && r.error === 'internal_error')).toHaveLength(100);
    expect(before.filter((r) => r.status === 'skipped' && r.error === 'not_sent')).toHaveLength(100);
    expect(await members(AU.followUp.id)).toHaveLength(100);

    await fx.clearFaults();
    await fx.resetStats();
    const second = await cnvInProcess(
      [
        'audience',
        'add',
        AU.followUp.id,
        '--batch',
        path,
        '--chunk-size',
        '100',
        '--report',
        report,
        '--resume-from-report',
        report,
      ],
      { env: fx.env },
    );
    expect(second.exitCode).toBe(0);
    expect((await fx.stats()).total).toBe(2);
    const after = readReport(report);
    expect(after).toHaveLength(300);
    expect(after.every((r) => r.status === 'added')).toBe(true);
    expect(after.filter((r) => r.message.startsWith('done in an earlier run'))).toHaveLength(100);
    expect(new Set(await members(AU.followUp.id))).toEqual(new Set(ids));
    expect(second.stderr).toMatch(/100 of them done in an earlier run/);
  });

  it('--dry-run validates the whole file and sends nothing', async () => {
    const path = write('dry.csv', `email\n${FX.ada.email}\nnot-an-email\n${FX.grace.email}\n`);
    const report = reportPath();
    const res = await cnvInProcess(
      ['audience', 'add', AU.followUp.id, '--batch', path, '--report', report, '--dry-run'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(6);
    expect((await fx.stats()).total).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(['valid', 'invalid', 'valid']);
    expect(res.stderr).toMatch(/^dry run, nothing sent: 3 rows: 2 valid, 0 failed, 1 invalid/m);
  });

  it('reads NDJSON from stdin and prints the report on stdout with --report - (the binary: a real pipe)', async () => {
    const input = `{"email":"${FX.ada.email}"}\n{"userId":"user-grace"}\n{"cnvContactId":"not-a-uuid"}\n`;
    const res = await cnv(['audience', 'add', AU.followUp.id, '--batch', '-', '--report', '-'], { env: fx.env, input });
    expect(res.exitCode).toBe(6);
    const rows = reportRows(res.stdout);
    expect(rows.map((r) => [r.line, r.status, r.error])).toEqual([
      ['1', 'added', ''],
      ['2', 'added', ''],
      ['3', 'invalid', 'invalid_request'],
    ]);
  });

  it('reads a JSON array', async () => {
    const path = write('people.json', JSON.stringify([{ email: FX.ada.email }, { email: FX.linus.email }], null, 2));
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(await members(AU.followUp.id)).toEqual([FX.ada.id, FX.linus.id]);
  });

  it('without --report, failed and invalid rows are listed on stderr with their lines', async () => {
    const path = write('few.csv', `email\n${FX.ada.email}\nghost@example.com\n`);
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path], { env: fx.env });
    expect(res.exitCode).toBe(6);
    expect(res.stderr).toMatch(/^line 3: failed: contact_not_found: .*\(ghost@example\.com\)$/m);
  });

  it('a key without the batch endpoint enabled: exit 4 export_not_enabled, rows skipped', async () => {
    const path = write('basic.csv', 'email\nbasic.user@example.com\n');
    const report = reportPath();
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path, '--report', report], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.basic },
    });
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/export_not_enabled/);
    expect(readReport(report)).toEqual([
      expect.objectContaining({ line: '2', status: 'skipped', error: 'export_not_enabled' }),
    ]);
  });

  it('an unreadable file exits 2 naming the file and line; a missing file sends nothing', async () => {
    const broken = write('broken.json', `[{"email":"${FX.ada.email}"},\n{"email": "x"\n`);
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', broken], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/broken\.json line \d+: .*not closed/);
    const missing = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', join(dir, 'nope.csv')], {
      env: fx.env,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/nope\.csv: no such file/);
    expect((await fx.stats()).total).toBe(0);
  });

  it('--batch goes without identifier flags', async () => {
    const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', 'x.csv', '--email', FX.ada.email], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--batch: the contacts come from the file; drop --email/);
  });

  it('Ctrl-C: stops sending, waits for the request in flight, writes the report, exits 130', async () => {
    const { path } = idFile(200);
    const report = reportPath();
    await fx.faults({ latencyMs: 300 });
    const child = execa(
      'node',
      [
        BIN,
        'audience',
        'add',
        AU.followUp.id,
        '--batch',
        path,
        '--chunk-size',
        '10',
        '--concurrency',
        '1',
        '--report',
        report,
      ],
      {
        env: fx.env,
        reject: false,
      },
    );
    while (((await fx.stats()).total ?? 0) < 1) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const res = await child;
    expect(res.exitCode).toBe(130);
    expect(String(res.stderr)).toMatch(/interrupted/);
    const rows = readReport(report);
    expect(rows).toHaveLength(200);
    const added = rows.filter((r) => r.status === 'added').length;
    expect(added).toBeGreaterThanOrEqual(10);
    expect(added).toBeLessThan(200);
    expect(rows.filter((r) => r.status === 'skipped')).toHaveLength(200 - added);
    expect(await members(AU.followUp.id)).toHaveLength(added);
  });
});

describe('campaigns add --batch (in-process)', () => {
  it('adds every contact of the file; an unknown campaign stops with exit 5', async () => {
    const { path, ids } = idFile(120);
    const res = await cnvInProcess(['campaigns', 'add', CA.tradeShow.id, '--batch', path, '--chunk-size', '50'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    expect(new Set(await campaignMembers(CA.tradeShow.id))).toEqual(new Set(ids));
    const archived = await cnvInProcess(['campaigns', 'add', CA.archived.id, '--batch', path], { env: fx.env });
    expect(archived.exitCode).toBe(5);
    expect(archived.stderr).toMatch(/campaign_not_found/);
  });
});
