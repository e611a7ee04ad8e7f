import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_EVENT_TYPES } from '../../src/endpoints/exports.js';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { BIN, cnv, cnvInProcess } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';
import { duplicates, exportState, ndjsonRows, outDir, killUntilDone } from '../helpers/exports.js';

// Every email event type in one command: one state holding each type's cursor, committed with
// the file's length after each page. Pages of the types interleave in any order, so "exactly
// once" is checked as: the lines of the file are the lines of the nine single-type exports.
let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let reference: string[];
let perType: Record<string, number>;
const LIMIT = '200'; // 4,000 demo events over nine types: 24 pages

beforeAll(async () => {
  fx = await emulatorFixture({ rateLimit: 0 });
  reference = [];
  perType = {};
  for (const type of EMAIL_EVENT_TYPES) {
    const res = await cnvInProcess(['export', 'email-events', '--type', type, '--no-state', '--quiet'], {
      env: fx.env,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    const lines = res.stdout.split('\n').filter((l) => l !== '');
    perType[type] = lines.length;
    reference.push(...lines);
  }
  reference.sort();
});
afterAll(() => fx.close());
beforeEach(() => fx.clearFaults());

const args = (out: string, key: string, limit = LIMIT) => [
  'export',
  'email-events',
  '--type',
  'all',
  '--out',
  out,
  '--state-key',
  key,
  '--limit',
  limit,
];
const spawn = (argv: string[], env: Record<string, string> = {}): ResultPromise =>
  execa('node', [BIN, ...argv], { reject: false, env: { ...fx.env, ...env } }) as unknown as ResultPromise;
const sortedLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .sort();

describe('--type all into one file', () => {
  it('every row of every type exactly once, rows carry eventType; one state with nine cursors; the next run adds nothing', async () => {
    const out = join(outDir(), 'events.ndjson');
    const res = await cnvInProcess(args(out, 'all-clean'), { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(sortedLines(text)).toEqual(reference);
    const counts: Record<string, number> = {};
    for (const row of ndjsonRows(text)) counts[row.eventType] = (counts[row.eventType] ?? 0) + 1;
    expect(counts).toEqual(perType);
    for (const type of EMAIL_EVENT_TYPES)
      expect(res.stderr).toContain(`  ${type}: complete, ${perType[type].toLocaleString('en-US')} rows`);
    const state = (await exportState(fx.configDir, 'all-clean'))!;
    expect(state.emailType).toBe('all');
    expect(Object.keys(state.current.lanes ?? {}).sort()).toEqual([...EMAIL_EVENT_TYPES].sort());
    expect(state.current.output).toMatchObject({ kind: 'file', bytes: Buffer.byteLength(text) });
    for (const type of EMAIL_EVENT_TYPES) expect(state.current.lanes![type].rows).toBe(perType[type]);

    const again = await cnvInProcess(args(out, 'all-clean'), { env: fx.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });

  it('to stdout with a state: every row once, the next run sends nothing; the summary and state show list each type', async () => {
    const summaryFile = join(fx.configDir, 'all-types-summary.json');
    const first = await cnvInProcess(
      [
        'export',
        'email-events',
        '--type',
        'all',
        '--limit',
        '500',
        '--state-key',
        'all-types',
        '--summary-json',
        summaryFile,
      ],
      { env: fx.env },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    expect(sortedLines(first.stdout)).toEqual(reference);
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    expect(summary).toMatchObject({ status: 'complete', rows: reference.length, moreRemains: false });
    expect(summary.types.EMAIL_OPEN).toMatchObject({ status: 'complete', rows: perType.EMAIL_OPEN });
    const second = await cnvInProcess(
      ['export', 'email-events', '--type', 'all', '--limit', '500', '--state-key', 'all-types', '--quiet'],
      { env: fx.env },
    );
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
    const show = await cnvInProcess(['export', 'state', 'show', summary.stateKey, '--json'], { env: fx.env });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain('"EMAIL_TOPIC_UNSUBSCRIBE"');
    expect(show.stdout).toContain(`"rows": ${perType.EMAIL_TOPIC_UNSUBSCRIBE}`);
  });

  it('a comma list, CSV: one header, only those types', async () => {
    const out = join(outDir(), 'events.csv');
    const res = await cnvInProcess(
      ['export', 'email-events', '--type', 'email_click,EMAIL_OPEN', '--out', out, '--limit', LIMIT],
      { env: fx.env },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .split('\r\n')
      .filter((l) => l !== '');
    expect(lines.filter((l) => l.startsWith('eventId,'))).toHaveLength(1);
    expect(lines[0].startsWith('eventId,')).toBe(true);
    expect(lines.length - 1).toBe(perType.EMAIL_OPEN + perType.EMAIL_CLICK);
    expect(duplicates(lines)).toEqual([]);
  });

  it.each([
    ['mid-write', 5],
    ['after-fsync', 9],
    ['before-state', 2],
    ['after-state', 12],
  ])('SIGKILL at %s on page %i, then resume: every row of every type exactly once', async (step, page) => {
    const out = join(outDir(), 'events.ndjson.gz');
    const key = `all-${step}-${page}`;
    const crashed = await cnv(args(out, key), { env: { ...fx.env, CNV_TEST_CRASH_AT: `${step}:${page}` } });
    expect(crashed.exitCode, crashed.stderr).toBe(-1);
    const state = (await exportState(fx.configDir, key))!;
    // Pages that arrive together are committed together (group commit): the kill falls in the one holding page N.
    if (step === 'after-state') expect(state.current.pages).toBeGreaterThanOrEqual(page);
    else expect(state.current.pages).toBeLessThan(page);
    const resumed = await cnvInProcess(args(out, key), { env: fx.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(sortedLines(gunzipSync(readFileSync(out)).toString('utf8'))).toEqual(reference);
  });

  it('kill -9 from outside at random moments, 2 seeds: resumed until done, every row exactly once', async () => {
    await fx.faults({ latencyMs: 40 });
    let kills = 0;
    for (let seed = 1; seed <= 2; seed++) {
      const random = mulberry32(seed);
      const out = join(outDir(), `random-${seed}.ndjson`);
      const { finished, kills: killed } = await killUntilDone(
        () => spawn(args(out, `all-random-${seed}`, '100')),
        random,
        { attempts: 12, base: 250, spread: 400, step: 300 },
      );
      kills += killed;
      expect(finished, `seed ${seed}`).toBe(true);
      expect(sortedLines(readFileSync(out, 'utf8')), `seed ${seed}`).toEqual(reference);
    }
    expect(kills).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('SIGTERM stops every type, keeps what is committed (the file is its committed length), exits 143; the resume completes', async () => {
    await fx.faults({ latencyMs: 100 });
    const out = join(outDir(), 'term.ndjson');
    const child = spawn(args(out, 'all-term', '100'));
    const until = Date.now() + 10_000;
    while (((await exportState(fx.configDir, 'all-term'))?.current.pages ?? 0) < 3) {
      if (Date.now() > until) throw new Error('timed out waiting for 3 committed pages');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGTERM');
    const res = await child;
    expect(res.exitCode, String(res.stderr)).toBe(143);
    expect(String(res.stderr)).toMatch(/export email-events all interrupted: /);
    const state = (await exportState(fx.configDir, 'all-term'))!;
    expect(state.runs.at(-1)?.status).toBe('interrupted');
    expect(statSync(out).size).toBe(state.current.output.kind === 'file' ? state.current.output.bytes : -1);
    await fx.clearFaults();
    const resumed = await cnvInProcess(args(out, 'all-term'), { env: fx.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(sortedLines(readFileSync(out, 'utf8'))).toEqual(reference);
  });

  it('refuses --max-rows (one type at a time) and an unknown type in the list (exit 2)', async () => {
    const a = await cnvInProcess(['export', 'email-events', '--type', 'all', '--max-rows', '10'], { env: fx.env });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toContain('--max-rows applies to one type at a time');
    const b = await cnvInProcess(['export', 'email-events', '--type', 'EMAIL_OPEN,bogus'], { env: fx.env });
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toContain('--type: expected all, or one or a comma list');
  });
});

describe('a type that fails', () => {
  let proxy: Server;
  let failClicks = true;
  let proxyUrl: string;
  beforeAll(async () => {
    // In front of the emulator: EMAIL_CLICK fails from its second page on (503), while asked to.
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const asked = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
      if (failClicks && req.url === '/v2/exports/email-events' && asked.eventType === 'EMAIL_CLICK' && asked.cursor) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'Service unavailable' } }));
        return;
      }
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers['content-length'];
      const answer = await fetch(fx.emulator.url + req.url, {
        method: req.method,
        headers,
        body: body.length > 0 ? body : undefined,
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  it('the others complete and stay committed; exit 7 names it; the next run finishes it, every row exactly once', async () => {
    const env = { ...fx.env, CNV_BASE_URL: proxyUrl };
    const out = join(outDir(), 'events.ndjson');
    failClicks = true;
    const failed = await cnvInProcess([...args(out, 'all-fail'), '--max-retries', '0'], { env });
    expect(failed.exitCode, failed.stderr).toBe(7);
    expect(failed.stderr).toMatch(
      /1 of 9 types did not complete: EMAIL_CLICK \(.*\); completed: EMAIL_SEND, EMAIL_DELIVERY, EMAIL_OPEN, EMAIL_BOUNCE/,
    );
    expect(failed.stderr).toContain(`  EMAIL_CLICK: failed, 200 rows in 1 page`);
    const state = (await exportState(fx.configDir, 'all-fail'))!;
    expect(state.current.lanes!.EMAIL_CLICK.rows).toBe(200);
    expect(state.current.lanes!.EMAIL_SEND.rows).toBe(perType.EMAIL_SEND);
    expect(state.current.rows).toBe(reference.length - (perType.EMAIL_CLICK - 200));

    failClicks = false;
    const next = await cnvInProcess(args(out, 'all-fail'), { env });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(sortedLines(readFileSync(out, 'utf8'))).toEqual(reference);
  });
});

describe('a type that fails, --out-dir', () => {
  it('the other files complete; exit 7 names the failed type; the next run finishes its file', async () => {
    // EMAIL_COMPLAINT (82 demo rows) fails from its second page on: pages of 50.
    let failing = true;
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const asked = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
      if (failing && asked.eventType === 'EMAIL_COMPLAINT' && asked.cursor) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'service_unavailable', message: 'Service unavailable' } }));
        return;
      }
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers['content-length'];
      const answer = await fetch(fx.emulator.url + req.url, {
        method: req.method,
        headers,
        body: body.length > 0 ? body : undefined,
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const env = { ...fx.env, CNV_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
      const dir = join(outDir(), 'by-type');
      const argv = [
        'export',
        'email-events',
        '--type',
        'EMAIL_COMPLAINT,EMAIL_BOUNCE,EMAIL_OPEN',
        '--out-dir',
        dir,
        '--limit',
        '50',
      ];
      const failed = await cnvInProcess([...argv, '--max-retries', '0'], { env });
      expect(failed.exitCode, failed.stderr).toBe(7);
      expect(failed.stderr).toMatch(
        /1 of 3 types did not complete: EMAIL_COMPLAINT \(.*\); completed: EMAIL_OPEN, EMAIL_BOUNCE/,
      );
      expect(ndjsonRows(join(dir, 'EMAIL_OPEN.ndjson'))).toHaveLength(perType.EMAIL_OPEN);
      expect(ndjsonRows(join(dir, 'EMAIL_COMPLAINT.ndjson'))).toHaveLength(50);
      failing = false;
      const next = await cnvInProcess(argv, { env });
      expect(next.exitCode, next.stderr).toBe(0);
      const complaints = ndjsonRows(join(dir, 'EMAIL_COMPLAINT.ndjson'));
      expect(complaints).toHaveLength(perType.EMAIL_COMPLAINT);
      expect(duplicates(complaints.map((r) => r.eventId))).toEqual([]);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});

describe('--out-dir: one file per type', () => {
  it('files named by type, gzip with --compress gzip, each its own state; a second run adds nothing', async () => {
    const dir = join(outDir(), 'by-type');
    const res = await cnvInProcess(
      ['export', 'email-events', '--type', 'all', '--out-dir', dir, '--compress', 'gzip', '--limit', '500'],
      { env: fx.env },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(EMAIL_EVENT_TYPES.map((t) => `${t}.ndjson.gz`).sort());
    const all: string[] = [];
    for (const type of EMAIL_EVENT_TYPES) {
      const rows = ndjsonRows(gunzipSync(readFileSync(join(dir, `${type}.ndjson.gz`))).toString('utf8'));
      expect(rows.every((r) => r.eventType === type)).toBe(true);
      expect(rows).toHaveLength(perType[type]);
      all.push(...rows.map((r) => JSON.stringify(r)));
    }
    expect(all.sort()).toEqual(reference);
    const again = await cnvInProcess(
      ['export', 'email-events', '--type', 'all', '--out-dir', dir, '--compress', 'gzip', '--limit', '500'],
      { env: fx.env },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr.match(/complete: nothing new since the last run/g), again.stderr).toHaveLength(9);
  });

  it('refuses --out with --out-dir, and --state-key (exit 2)', async () => {
    const a = await cnvInProcess(
      ['export', 'email-events', '--type', 'all', '--out-dir', outDir(), '--out', 'x.ndjson'],
      { env: fx.env },
    );
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toContain('--out and --out-dir do not go together');
    const b = await cnvInProcess(
      ['export', 'email-events', '--type', 'all', '--out-dir', outDir(), '--state-key', 'k'],
      { env: fx.env },
    );
    expect(b.exitCode).toBe(2);
  });
});
