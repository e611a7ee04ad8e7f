import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';
import { hostileServer } from '../helpers/hostile-server.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let dir: string;
beforeAll(async () => {
  fx = await emulatorFixture();
  dir = mkdtempSync(join(tmpdir(), 'cnv-ux-'));
});
afterAll(() => fx.close());

/** stderr as lines, without the empty one after the last newline. */
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('one error format: error: <code>: <message>, then at most a hint line', () => {
  it.each([
    [['contacts', 'get', '--bogus'], 'unknown_option', /^hint: see `cnv contacts get --help`$/],
    [['contacts', 'get', '--colour'], 'unknown_option', /did you mean --no-color\?/],
    [['contactz'], 'unknown_command', /^hint: did you mean contacts\? /],
    [['export', 'email-events', '--type', 'OPEN'], 'invalid_value', /^hint: did you mean EMAIL_OPEN\?$/],
    [
      ['contacts', 'upsert', '--file', 'x.csv', '--input-format', 'CSVV'],
      'invalid_value',
      /^hint: did you mean csv\?$/,
    ],
    [['--timeout', 'abc', 'config', 'list'], 'invalid_value', /^hint: see `cnv --help`$/],
    [['config', 'use'], 'missing_argument', /^hint: /],
    [['contacts', 'get', '--contact-id'], 'missing_value', /^hint: /],
    [['-v'], 'missing_command', /cnv version/],
    [['--json'], 'missing_command', /cnv --help/],
    [['help', 'exit-code'], 'unknown_topic', /^hint: did you mean exit-codes\? /],
    [['help', 'contacts', 'gte'], 'unknown_topic', /^hint: did you mean get\? /],
  ])('cnv %j', async (args, code, hint) => {
    const res = await cnvInProcess(args, { env: fx.env });
    expect(res.exitCode).toBe(2);
    const err = lines(res.stderr).filter((l) => !l.startsWith('{'));
    expect(err).toHaveLength(2);
    expect(err[0]).toMatch(new RegExp(`^error: ${code}: \\S`));
    expect(err[1]).toMatch(hint);
    expect(res.stderr).not.toContain('(add --help for usage)');
    expect(res.stdout).toBe('');
  });

  it('an unknown command suggests the command, not also its alias', async () => {
    const res = await cnvInProcess(['contactz'], { env: fx.env });
    expect(res.stderr).not.toMatch(/\bcontact\b(?!s)/);
  });

  it('names the flag and the value for enum errors, and --json adds the same error as JSON', async () => {
    const res = await cnvInProcess(['export', 'email-events', '--type', 'OPEN', '--json'], { env: fx.env });
    const err = lines(res.stderr);
    expect(err[0]).toMatch(
      /^error: invalid_value: --type: expected all, or one or a comma list of EMAIL_SEND, .*EMAIL_OPEN.* \(any case\), got "OPEN"$/,
    );
    expect(JSON.parse(err[2]).error).toMatchObject({
      code: 'invalid_value',
      exitCode: 2,
      hint: 'did you mean EMAIL_OPEN?',
    });
  });

  it('--timeout past what a timer can wait (2^31-1 ms) is refused, not turned into 1 ms by Node.js', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com', '--timeout', '99999999999'], {
      env: fx.env,
    });
    expect([res.exitCode, lines(res.stderr)[0]]).toEqual([
      2,
      'error: invalid_value: --timeout: expected a number from 1 to 2147483647, got 99999999999',
    ]);
  });

  it('-o takes any case like every other enum', async () => {
    const res = await cnvInProcess(['-o', 'CSV', 'config', 'list'], { env: { CNV_CONFIG_DIR: tempConfigDir() } });
    expect(res.exitCode).toBe(0);
    expect(res.stdout.split('\n')[0]).toMatch(/^profile,current,baseUrl,apiKey/);
  });

  it('an export refused before its first page prints the error and its hint only; its --summary-json says failed', async () => {
    await fx.faults({ failNext: 5 });
    try {
      const summary = join(dir, 'failed-summary.json');
      const res = await cnvInProcess(
        [
          'export',
          'contacts',
          '--no-state',
          '--max-retries',
          '0',
          '--out',
          join(dir, 'failed.ndjson'),
          '--summary-json',
          summary,
        ],
        { env: fx.env },
      );
      expect(res.exitCode).toBe(7);
      expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
        command: 'export contacts',
        status: 'failed',
        rows: 0,
      });
      const err = lines(res.stderr);
      expect(err[0]).toMatch(/^error: /);
      expect(err.slice(1).every((l) => l.startsWith('hint: '))).toBe(true);
    } finally {
      await fx.clearFaults();
    }
  });

  it('an export that fails after some pages prints its summary first and the error (then its hint) last', async () => {
    // Page 1 from the emulator, then a server error.
    let requests = 0;
    const server = await hostileServer(async (req, res, body) => {
      if (++requests > 1) {
        res.writeHead(500, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { code: 'internal_error', message: 'injected' } }));
      }
      const answer = await fetch(fx.emulator.url + req.url, {
        method: req.method,
        headers: { 'x-api-key': String(req.headers['x-api-key']), 'content-type': 'application/json' },
        body,
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
    try {
      const res = await cnvInProcess(
        [
          'export',
          'contacts',
          '--no-state',
          '--max-retries',
          '0',
          '--limit',
          '100',
          '--out',
          join(dir, 'failed-later.ndjson'),
        ],
        { env: { ...fx.env, CNV_BASE_URL: server.url } },
      );
      expect(res.exitCode).toBe(7);
      const err = lines(res.stderr);
      const at = err.findIndex((l) => l.startsWith('error: '));
      expect(at).toBeGreaterThan(0);
      expect(err[at - 1]).toMatch(/^export contacts failed: 100 rows in 1 page /);
      expect(err.slice(at + 1).every((l) => l.startsWith('hint: '))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('help and version', () => {
  it('cnv help contacts get is the whole page of cnv contacts get --help: its notes and whole flag descriptions too', async () => {
    const viaHelp = await cnvInProcess(['help', 'contacts', 'get']);
    const viaFlag = await cnvInProcess(['contacts', 'get', '--help']);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toContain('\nEXAMPLES\n');
    expect(viaHelp.stdout).toContain('No match exits with code 5.');
    expect(viaFlag.stdout).not.toContain('No match exits with code 5.');
    expect(viaHelp.stdout.replace(/\s+/g, ' ')).toContain('the most recently updated one when several share it');
    expect(viaFlag.stdout).toMatch(/\nLEARN MORE\n {2}The whole page: `cnv help contacts get`/);
  });

  it.each([['contacts'], ['export'], ['config'], ['export', 'state']])(
    'cnv %j --help has examples',
    async (...path) => {
      const res = await cnvInProcess([...path, '--help']);
      expect(res.stdout).toMatch(/EXAMPLES\n {2}\$ \S/);
    },
  );
});

describe('summaries', () => {
  it('say "1 row" and "1 page", milliseconds under a second and no rate', async () => {
    const res = await cnvInProcess(
      ['export', 'contacts', '--no-state', '--max-rows', '1', '--out', join(dir, 'one.csv')],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toMatch(/export contacts stopped: 1 row in 1 page to .*one\.csv \(\d+ ms\)/);
    expect(res.stderr).not.toMatch(/rows\/s|0\.0 s/);
  });

  it('--quiet with exit 6 still says how many rows failed and where the report is', async () => {
    const input = join(dir, 'bad.csv');
    writeFileSync(input, 'email\nada@example.com\nnot-an-email\n');
    const report = join(dir, 'bad-report.csv');
    const res = await cnvInProcess(['contacts', 'upsert', '--file', input, '--report', report, '--quiet'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(6);
    expect(lines(res.stderr)).toEqual([`1 of 2 rows failed or were invalid; report: ${report}`]);
  });

  it('--summary-json FILE is written for a batch run (exit 6 included) and an export run', async () => {
    const input = join(dir, 'bad2.csv');
    writeFileSync(input, 'email\nada@example.com\nnot-an-email\n');
    const summary = join(dir, 'batch-summary.json');
    const res = await cnvInProcess(['contacts', 'upsert', '--file', input, '--summary-json', summary], { env: fx.env });
    expect(res.exitCode).toBe(6);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
      status: 'partial',
      exitCode: 6,
      rows: 2,
      succeeded: 1,
      invalid: 1,
    });

    const exportSummary = join(dir, 'export-summary.json');
    const exp = await cnvInProcess(
      ['export', 'contacts', '--no-state', '--out', join(dir, 'all.csv'), '--summary-json', exportSummary],
      { env: fx.env },
    );
    expect(exp.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(exportSummary, 'utf8'))).toMatchObject({
      command: 'export contacts',
      status: 'complete',
      moreRemains: false,
    });
  });

  it('--summary-json is written when the run fails before its first page too', async () => {
    await fx.faults({ failNext: 5 });
    try {
      const summary = join(dir, 'early-summary.json');
      const res = await cnvInProcess(
        [
          'export',
          'contacts',
          '--no-state',
          '--max-retries',
          '0',
          '--out',
          join(dir, 'early.csv'),
          '--summary-json',
          summary,
        ],
        { env: fx.env },
      );
      expect(res.exitCode).toBe(7);
      expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
        command: 'export contacts',
        status: 'failed',
        rows: 0,
        output: join(dir, 'early.csv'),
      });
    } finally {
      await fx.clearFaults();
    }
  });

  it('--summary-json - goes to stdout when the rows go to a file, and is refused when stdout carries rows', async () => {
    const res = await cnvInProcess(
      ['export', 'contacts', '--no-state', '--max-rows', '2', '--out', join(dir, 'two.csv'), '--summary-json', '-'],
      { env: fx.env },
    );
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'stopped', rows: 2 });
    const refused = await cnvInProcess(['export', 'contacts', '--no-state', '--summary-json', '-'], { env: fx.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^error: conflicting_options: --summary-json -/);
    expect(refused.stdout).toBe('');
  });

  it('--summary-json naming the output, report or input file is refused (it would replace it)', async () => {
    const out = join(dir, 'same.csv');
    const exp = await cnvInProcess(['export', 'contacts', '--no-state', '--out', out, '--summary-json', out], {
      env: fx.env,
    });
    expect(exp.exitCode).toBe(2);
    expect(exp.stderr).toMatch(/^error: usage: --summary-json: must not be the same file as --out$/m);
    const input = join(dir, 'in.csv');
    writeFileSync(input, 'email\nada@example.com\n');
    const batch = await cnvInProcess(['contacts', 'upsert', '--file', input, '--summary-json', input], { env: fx.env });
    expect(batch.exitCode).toBe(2);
    expect(readFileSync(input, 'utf8')).toBe('email\nada@example.com\n');
  });

  it('--summary-json into a missing directory is refused before the run', async () => {
    const res = await cnvInProcess(
      ['export', 'contacts', '--no-state', '--out', join(dir, 'x.csv'), '--summary-json', join(dir, 'nope', 's.json')],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(2);
    expect(existsSync(join(dir, 'x.csv'))).toBe(false);
  });
});

describe('identifiers, state reset, profiles', () => {
  it('--contact-id with --email warns that the email plays no part in the lookup', async () => {
    const res = await cnvInProcess(
      ['contacts', 'get', '--contact-id', '7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f', '--email', 'ada@example.com'],
      { env: fx.env },
    );
    expect(res.stderr).toMatch(/^warning: --email is ignored: the API finds the contact by --contact-id/m);
  });

  it('-q without an expression is exit 2 with the usage error as it is: -q is --query, no hint of another meaning', async () => {
    const cases: Array<[string[], string]> = [
      [['campaigns', 'list', '-q'], 'error: missing_value: --query needs a value'],
      [['campaigns', 'list', '-q', '--json'], 'error: usage: -q/--query: not a valid JMESPath expression "--json"'],
      [['campaigns', 'list', '-q', '-o', 'json'], "error: too_many_arguments: too many arguments for 'list'"],
      [['-q', 'campaigns', 'list'], "error: unknown_command: unknown command 'list'"],
    ];
    for (const [args, error] of cases) {
      const res = await cnvInProcess(args, { env: fx.env });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(lines(res.stderr)[0], args.join(' ')).toContain(error);
      expect(res.stderr, args.join(' ')).not.toMatch(/quiet/);
    }
  });
});
