import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES as AU } from '../../src/emulator/seed/fixtures.js';
import { batchFiles, reportCsv } from '../helpers/batch-files.js';
import { BIN, cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The report path the user named is resumable after any crash (kill -9), progress never goes
// back, re-sends are bounded by the rows in flight, and no pre-placed link is followed.

const { write, reportPath, readReport } = batchFiles('cnv-crash-');
const EVENTS = 'POST /v2/events';

const fx = useEmulator({}, { faults: true, stats: true });

/** Requests the emulator answered (a 429 was not processed, so it is no send). */
async function sends(route: string): Promise<number> {
  const byStatus: Record<string, number> = (await fx.stats()).byRouteStatus?.[route] ?? {};
  return Object.entries(byStatus).reduce((n, [status, count]) => (status === '429' ? n : n + count), 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kill -9 and resume (binary)', () => {
  it('5 rounds of kill -9 at random points, then a final resume: one result per row, re-sends within rounds x (concurrency x chunk size)', async () => {
    const ROWS = 300;
    const CONCURRENCY = 4; // one row per request: the bound is 4 rows per crash
    const event = `crash_${Date.now()}`;
    const path = write(
      'events.csv',
      `email,createContact\n${Array.from({ length: ROWS }, (_, i) => `crash-${i}@example.com,true`).join('\n')}\n`,
    );
    const report = reportPath();
    const args = [
      'events',
      'track',
      '--file',
      path,
      '--event',
      event,
      '--concurrency',
      String(CONCURRENCY),
      '--report',
      report,
      '--pass-column',
      'createContact',
    ];
    await fx.faults({ latencyMs: 5 });
    const ROUNDS = 5;
    for (let round = 0; round < ROUNDS; round++) {
      const before = await sends(EVENTS);
      const child = execa('node', [BIN, ...args, ...(round > 0 ? ['--resume-from-report', report] : [])], {
        env: fx.env,
        reject: false,
        stdin: 'ignore',
      });
      const at = before + 5 + Math.floor(Math.random() * 30);
      while ((await sends(EVENTS)) < at && child.exitCode === null) await sleep(5);
      child.kill('SIGKILL');
      const res = await child;
      expect(res.signal).toBe('SIGKILL');
      // The path itself is a report at every moment: what --resume-from-report reads.
      expect(
        reportCsv(readFileSync(report, 'utf8')).startsWith(
          'line,identifier,status,cnvContactId,error,message,row,hash,job\n',
        ),
      ).toBe(true);
    }
    await sleep(50); // requests the killed process left in flight reach the emulator
    const final = await cnv([...args, '--resume-from-report', report], { env: fx.env });
    expect(final.exitCode).toBe(0);
    const rows = readReport(report);
    expect(rows.map((r) => Number(r.line))).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2));
    expect(rows.every((r) => r.status === 'tracked' || r.status === 'duplicate')).toBe(true);
    const stored = (await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as unknown[];
    expect(stored).toHaveLength(ROWS);
    // Before: every kill could lose all progress after it (the report was only a .partial).
    expect(await sends(EVENTS)).toBeLessThanOrEqual(ROWS + ROUNDS * CONCURRENCY);
    // No temporary file is left beside the report.
    expect(readdirSync(dirname(report)).filter((n) => n.startsWith(`.${basename(report)}.`))).toEqual([]);
  });

  it('a JSON array on one line (identical events in pairs): 3 rounds of kill -9, then a resume; progress never goes back, re-sends within the bound', async () => {
    const ROWS = 600;
    const CONCURRENCY = 8;
    const event = `oneline_${Date.now()}`;
    // Every row twice: the pairs are two events each, although they share line 1 and their values.
    const path = write(
      'events.json',
      JSON.stringify(
        Array.from({ length: ROWS }, (_, i) => ({
          email: `line-${i >> 1}@example.com`,
          createContact: true,
          data: { pair: i >> 1 },
        })),
      ),
    );
    const report = reportPath();
    const args = [
      'events',
      'track',
      '--file',
      path,
      '--event',
      event,
      '--concurrency',
      String(CONCURRENCY),
      '--report',
      report,
      '--pass-column',
      'createContact',
    ];
    await fx.faults({ latencyMs: 5 });
    const ROUNDS = 3;
    let doneBefore = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const before = await sends(EVENTS);
      const child = execa('node', [BIN, ...args, ...(round > 0 ? ['--resume-from-report', report] : [])], {
        env: fx.env,
        reject: false,
        stdin: 'ignore',
      });
      const at = before + 60 + Math.floor(Math.random() * 60);
      while ((await sends(EVENTS)) < at && child.exitCode === null) await sleep(5);
      child.kill('SIGKILL');
      expect((await child).signal).toBe('SIGKILL');
      const done = new Set(
        readReport(report)
          .filter((r) => r.status === 'tracked' || r.status === 'duplicate')
          .map((r) => r.row),
      );
      // Before: rows were matched by line, every one of them line 1: a resume kept one and sent the rest again.
      expect(done.size, `round ${round}`).toBeGreaterThanOrEqual(doneBefore);
      doneBefore = done.size;
    }
    await sleep(50);
    const final = await cnv([...args, '--resume-from-report', report], { env: fx.env });
    expect(final.exitCode).toBe(0);
    const rows = readReport(report);
    expect(rows.map((r) => Number(r.row))).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(rows.every((r) => r.line === '1' && (r.status === 'tracked' || r.status === 'duplicate'))).toBe(true);
    expect(new Set(rows.map((r) => r.identifier)).size).toBe(ROWS);
    expect((await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as unknown[]).toHaveLength(ROWS);
    expect(await sends(EVENTS)).toBeLessThanOrEqual(ROWS + ROUNDS * CONCURRENCY);
  });

  it('a killed resume into another report keeps every row the earlier report had done', async () => {
    const ids = ((await fx.admin('GET', '/_emulator/state/contacts')) as Array<{ id: string }>)
      .slice(0, 60)
      .map((c) => c.id);
    const path = write('ids.csv', `cnvContactId\n${ids.join('\n')}\n`);
    const first = reportPath();
    const second = reportPath();
    const base = ['audience', 'add', AU.followUp.id, '--batch', path, '--chunk-size', '10', '--concurrency', '1'];
    await fx.faults({ latencyMs: 200 });
    const run1 = execa('node', [BIN, ...base, '--report', first], { env: fx.env, reject: false, stdin: 'ignore' });
    while ((await fx.stats()).total < 2) await sleep(20);
    run1.kill('SIGINT');
    expect((await run1).exitCode).toBe(130);
    const done1 = readReport(first)
      .filter((r) => r.status === 'added')
      .map((r) => r.line);
    expect(done1.length).toBeGreaterThan(0);
    await fx.faults({ latencyMs: 5_000 });
    const run2 = execa('node', [BIN, ...base, '--report', second, '--resume-from-report', first], {
      env: fx.env,
      reject: false,
      stdin: 'ignore',
    });
    while (!existsSync(second)) await sleep(20);
    await sleep(300);
    run2.kill('SIGKILL');
    await run2;
    const done2 = readReport(second)
      .filter((r) => r.status === 'added')
      .map((r) => r.line);
    expect(done2).toEqual(done1);
  });

  it('never follows a link it did not create, and removes the temporary files of a killed run', async () => {
    const ids = ((await fx.admin('GET', '/_emulator/state/contacts')) as Array<{ id: string }>)
      .slice(0, 5)
      .map((c) => c.id);
    const path = write('few.csv', `cnvContactId\n${ids.join('\n')}\n`);
    const report = reportPath();
    const victim = write('victim.txt', 'precious\n');
    const dir = dirname(report);
    const name = basename(report);
    symlinkSync(victim, `${report}.partial`);
    const staleLink = join(dir, `.${name}.cnv-2147480001-deadbeef.tmp`);
    const staleFile = join(dir, `.${name}.cnv-2147480002-cafebabe.tmp`);
    symlinkSync(victim, staleLink);
    writeFileSync(staleFile, 'left by a killed run\n');
    // The report path itself a link placed there: replaced, its target untouched. The same for
    // a link where the lock goes.
    symlinkSync(victim, report);
    symlinkSync(victim, join(dir, `.${name}.cnv-lock`));
    const res = await cnv(['audience', 'add', AU.followUp.id, '--batch', path, '--report', report], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(report).isFile()).toBe(true);
    expect(readReport(report).map((r) => r.status)).toEqual(Array(5).fill('added'));
    expect(existsSync(staleFile)).toBe(false);
    expect(() => lstatSync(staleLink)).toThrow(/ENOENT/);
    expect(readlinkSync(`${report}.partial`)).toBe(victim); // not ours: left alone
    expect(readdirSync(dir).filter((n) => n.startsWith(`.${name}.`))).toEqual([]);
  });

  it('two runs on one report: the second stops at once (exit 7, naming the first), the first is not disturbed', async () => {
    const ids = ((await fx.admin('GET', '/_emulator/state/contacts')) as Array<{ id: string }>)
      .slice(0, 20)
      .map((c) => c.id);
    const path = write('twice.csv', `cnvContactId\n${ids.join('\n')}\n`);
    const report = reportPath();
    const args = [
      'audience',
      'add',
      AU.followUp.id,
      '--batch',
      path,
      '--chunk-size',
      '5',
      '--concurrency',
      '1',
      '--report',
      report,
    ];
    await fx.faults({ latencyMs: 300 });
    const first = execa('node', [BIN, ...args], { env: fx.env, reject: false, stdin: 'ignore' });
    while (!existsSync(report)) await sleep(20);
    const second = await cnv([...args, '--resume-from-report', report], { env: fx.env });
    expect(second.exitCode).toBe(7);
    expect(second.stderr).toMatch(
      new RegExp(`report_locked: another cnv run \\(pid ${first.pid}\\) is writing the report`),
    );
    expect((await first).exitCode).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(Array(20).fill('added'));
    expect(readdirSync(dirname(report)).filter((n) => n.startsWith(`.${basename(report)}.`))).toEqual([]);
  });
});

describe('report redaction (binary, a server that echoes the key)', () => {
  let server: Server;
  let url: string;
  const KEY = 'sk_live_crashtest_0123456789abcdef0123456789abcdef';
  const OTHER = 'sk_live_someoneelse_fedcba9876543210';

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const key = String(req.headers['x-api-key']);
        const contacts = (JSON.parse(body || '{}').contacts ?? []) as unknown[];
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            data: {
              results: contacts.map((_, i) =>
                i === 0
                  ? { added: true, cnvContactId: `id-${key}` }
                  : {
                      added: false,
                      error: `bad_${key}`,
                      message: `the key ${key} (and ${OTHER}) cannot add this contact`,
                    },
              ),
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an item message, error code or id echoing a key is masked in the report, the summary and stderr', async () => {
    const path = write('echo.csv', 'email\na@example.com\nb@example.com\nc@example.com\n');
    const report = reportPath();
    const res = await cnv(['audience', 'add', AU.followUp.id, '--batch', path, '--report', report, '--json'], {
      env: { CNV_BASE_URL: url, CNV_API_KEY: KEY, CNV_CONFIG_DIR: dirname(report) },
    });
    expect(res.exitCode).toBe(6);
    const text = readFileSync(report, 'utf8');
    expect(text).toContain('sk_live_crashtest_****');
    expect(text).toContain('sk_live_someoneelse_****');
    for (const out of [text, res.stdout, res.stderr]) {
      expect(out).not.toContain(KEY);
      expect(out).not.toContain(OTHER);
    }
    const rows = readReport(report);
    expect(rows.map((r) => r.status)).toEqual(['added', 'failed', 'failed']);
  });

  it('the same when the report goes to stdout', async () => {
    const path = write('echo2.ndjson', '{"email":"a@example.com"}\n{"email":"b@example.com"}\n');
    const res = await cnv(['audience', 'add', AU.followUp.id, '--batch', path, '--report', '-'], {
      env: { CNV_BASE_URL: url, CNV_API_KEY: KEY, CNV_CONFIG_DIR: dirname(path) },
    });
    expect(res.exitCode).toBe(6);
    expect(res.stdout).toMatch(/^2,b@example.com,failed,,bad_sk_live_crashtest_\*\*\*\*,/m);
    expect(res.stdout + res.stderr).not.toContain(KEY);
  });
});
