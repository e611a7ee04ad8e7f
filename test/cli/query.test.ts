import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CAMPAIGNS, FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();
beforeEach(() => fx.resetStats());

const requests = async () => ((await fx.stats()) as { total: number }).total;

describe('-q/--query (JMESPath)', () => {
  it("cnv campaigns list -q '[].name' prints the names as a JSON array, on a terminal too", async () => {
    for (const stdoutIsTTY of [false, true]) {
      const res = await cnvInProcess(['campaigns', 'list', '--limit', '2', '-q', '[].name'], {
        env: fx.env,
        stdoutIsTTY,
      });
      expect(res.exitCode).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual([FIXTURE_CAMPAIGNS.springWebinar.name, FIXTURE_CAMPAIGNS.tradeShow.name]);
    }
  });

  it('a string result prints bare, like gh --jq; --query is the long name', async () => {
    const res = await cnvInProcess(
      ['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '--query', 'cnvContactId'],
      { env: fx.env },
    );
    expect(res.stdout).toBe(`${FIXTURE_CONTACTS.ada.id}\n`);
  });

  it('with --all the query sees every row; with -o ndjson it applies to each row', async () => {
    const all = await cnvInProcess(['campaigns', 'list', '--all', '--limit', '2', '-q', 'length(@)'], { env: fx.env });
    const active = [...fx.emulator.store.business('acme').campaigns.values()].filter((c) => !c.archived).length;
    expect(JSON.parse(all.stdout)).toBe(active);
    const lines = await cnvInProcess(
      ['campaigns', 'list', '--limit', '2', '-o', 'ndjson', '-q', '{id: id, members: memberCount}'],
      { env: fx.env },
    );
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { id: FIXTURE_CAMPAIGNS.springWebinar.id, members: 1 },
      { id: FIXTURE_CAMPAIGNS.tradeShow.id, members: 0 },
    ]);
  });

  it('applies to what --dry-run prints, too', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'dry.query@example.com', '--dry-run', '-q', 'body.email'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toBe('dry.query@example.com\n');
    expect(await requests()).toBe(0);
  });

  it('a file run prints its summary document on stdout for -q and --json, with --quiet too', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', '-', '-q', 'rows'], {
      env: fx.env,
      input: 'email\nq.file@example.com\n',
    });
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toBe('1\n');
    const quiet = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--json', '--quiet'], {
      env: fx.env,
      input: 'email\nq.file@example.com\n',
    });
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout)).toMatchObject({ status: 'complete', rows: 1, succeeded: 1, exitCode: 0 });
    const listed = await cnvInProcess(['campaigns', 'list', '--all', '-q', '[0].id'], { env: fx.env });
    expect(listed.stderr).not.toMatch(/-q/);
  });

  it('a query that selects nothing prints null (never nothing), and names the members when it starts from one the document lacks', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--query', 'summary.rows'], {
      env: fx.env,
      input: 'email\nq.file@example.com\n',
    });
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toBe('null\n');
    expect(res.stderr).toMatch(
      /^warning: -q\/--query selected nothing \(printed null\): the document has no member "summary" \(its members: status, rows, succeeded, /m,
    );
    const list = await cnvInProcess(['campaigns', 'list', '-q', 'name'], { env: fx.env });
    expect(list.stdout).toBe('null\n');
    expect(list.stderr).toMatch(
      /the document is an array, which has no member "name" \(select from its items: '\[\]\.name'\)/,
    );
    // A member that is there and null is what the query asked for: no warning.
    const value = await cnvInProcess(
      ['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '-q', 'userId || `null`'],
      { env: fx.env },
    );
    expect(value.stderr).not.toMatch(/warning/);
  });

  it('an export into --out prints its summary for -q; rows on stdout (or a report there) refuse -q and --json naming the flag to use', async () => {
    const out = `${fx.configDir}/q-export.ndjson`;
    const res = await cnvInProcess(
      ['export', 'contacts', '--out', out, '--no-state', '--max-rows', '3', '-q', 'rows'],
      { env: fx.env },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(Number(res.stdout)).toBeGreaterThanOrEqual(3);
    for (const flag of [['--json'], ['-q', 'rows']]) {
      const rows = await cnvInProcess(['export', 'contacts', '--no-state', ...flag], { env: fx.env });
      expect(rows.exitCode).toBe(2);
      expect(rows.stderr).toMatch(
        /^error: conflicting_options: (--json|-q\/--query): stdout carries the exported rows, so it cannot also hold the run's JSON summary\nhint: use --summary-json FILE, or --out FILE/m,
      );
      const report = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--report', '-', ...flag], {
        env: fx.env,
        input: 'email\nq.report@example.com\n',
      });
      expect(report.exitCode).toBe(2);
      expect(report.stderr).toMatch(
        /stdout carries the report \(--report -\).*\nhint: use --report FILE \(then --json prints the summary on stdout\), or --summary-json FILE/,
      );
    }
    expect(await requests()).toBe(1);
  });

  it("a file run's --dry-run with --json prints the summary, not the requests (as --summary-json - does)", async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--dry-run', '--json'], {
      env: fx.env,
      input: 'email\nq.dry@example.com\n',
    });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ dryRun: true, rows: 1, valid: 1 });
    expect(res.stderr).toMatch(/dry run: the requests are not printed, as stdout holds the summary/);
  });

  it('the commands whose output is text refuse -q and --json rather than ignore them', async () => {
    for (const args of [
      ['completion', 'bash', '--json'],
      ['help', 'contacts', '-q', '@'],
    ]) {
      const res = await cnvInProcess(args, { env: fx.env });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(
        /^error: usage: (--json|-q\/--query): `cnv (completion|help)` prints (a shell script|text), which has no JSON form/m,
      );
    }
  });

  it('a bad expression is exit 2 naming -q, before anything is sent', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '-q', '[.name'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: usage: -q\/--query: not a valid JMESPath expression "\[\.name"/m);
    expect(res.stdout).toBe('');
    expect(await requests()).toBe(0);
  });

  it('an expression that fails on the data (a function given the wrong type) is exit 2 too', async () => {
    const res = await cnvInProcess(
      ['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '-q', 'length(createdAt == `1`)'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/-q\/--query "length/);
  });

  it('-q with -o csv or table, and on a command that prints no JSON, is refused naming both', async () => {
    const csv = await cnvInProcess(['campaigns', 'list', '-q', '[].name', '-o', 'csv'], { env: fx.env });
    expect(csv.exitCode).toBe(2);
    expect(csv.stderr).toMatch(/-q\/--query and -o csv/);
    expect(await requests()).toBe(0);
  });
});

describe('output flags that conflict', () => {
  it('--json -o csv is exit 2 naming both; --json -o json is fine', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--json', '-o', 'csv'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: usage: --json and -o csv ask for two output formats/m);
    expect(await requests()).toBe(0);
    const ok = await cnvInProcess(['campaigns', 'list', '--json', '-o', 'json', '--limit', '1'], { env: fx.env });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveLength(1);
  });

  it('an export keeps -o as its file format and --json for its summary: no conflict there', async () => {
    const out = `${fx.configDir}/q-format.data`;
    const res = await cnvInProcess(
      ['export', 'contacts', '--no-state', '--limit', '5', '--max-pages', '1', '-o', 'csv', '--json', '--out', out],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')[0].split(',')).toEqual(expect.arrayContaining(['id', 'email']));
    expect(JSON.parse(res.stdout)).toMatchObject({
      command: 'export contacts',
      status: 'stopped',
      rows: 5,
      output: out,
    });
  });

  it('every list names its next page the same way on stderr, and stdout stays the bare array', async () => {
    for (const list of [
      ['campaigns', 'list'],
      ['fields', 'list'],
    ]) {
      const res = await cnvInProcess([...list, '--limit', '1', '--json'], { env: fx.env });
      expect(res.stderr).toMatch(/^next page: --cursor \S+ \(or --all for every page\)$/m);
      expect(JSON.parse(res.stdout)).toHaveLength(1);
    }
  });

  it('--quiet keeps its long name (-q is the query)', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '1', '--quiet'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('');
  });
});
