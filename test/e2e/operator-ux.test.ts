import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS, FIXTURE_CUSTOM_OBJECT } from '../../src/emulator/seed/fixtures.js';
import { execa } from 'execa';
import { BIN, cleanEnv, cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { ndjsonRows, outDir } from '../helpers/exports.js';
import { cnvOnTerminal } from '../helpers/terminal.js';
import { parse } from 'csv-parse/sync';

// Issue 22, through the built binary as an operator meets it: machine-first JSON, gh's help
// layout, exports a newcomer understands, progress that knows the end, and the small things.

const fx = useEmulator({ rateLimit: 0 }, { faults: true });

/** An env of its own config directory (states and profiles), pointed at the emulator. */
const freshEnv = () => ({ ...fx.env, CNV_CONFIG_DIR: tempConfigDir() });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** The section of a help page under TITLE, up to the next title. */
const section = (help: string, title: string) =>
  new RegExp(`\\n${title}\\n([\\s\\S]*?)(\\n\\n[A-Z]|$)`).exec(help)?.[1] ?? '';

describe('JSON is for machines', () => {
  it('export state list --json: ISO times, numbers and objects; the table keeps the human form and shows each key by its end', async () => {
    const env = freshEnv();
    const dir = outDir();
    for (const name of ['north.ndjson', 'south.ndjson'])
      expect((await cnv(['export', 'contacts', '--out', join(dir, name), '--limit', '1000'], { env })).exitCode).toBe(
        0,
      );
    const list = await cnv(['export', 'state', 'list', '--json'], { env });
    expect(list.exitCode, list.stderr).toBe(0);
    const items = JSON.parse(list.stdout) as Array<Record<string, any>>;
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item).toMatchObject({
        kind: 'contacts',
        emailType: null,
        format: 'ndjson',
        rows: expect.any(Number),
        pages: expect.any(Number),
        pending: null,
      });
      expect(item.cursorAt).toMatch(ISO);
      expect(item.output).toEqual({
        kind: 'file',
        path: expect.stringMatching(/(north|south)\.ndjson$/),
        bytes: readFileSync(item.output.path).length,
      });
      expect(item.lastRun).toMatchObject({ status: 'complete', runId: expect.any(String), rows: item.rows });
      expect(item.lastRun.finishedAt).toMatch(ISO);
    }
    // A terminal 90 columns wide: the two keys differ only in their file, which each row still shows.
    const table = await cnvOnTerminal(['export', 'state', 'list'], { env, columns: 90 });
    expect(table.exitCode, table.stdout).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^key +kind +rows +cursorAt +lastRun$/);
    expect(
      lines
        .slice(1)
        .map((l) => /(north|south)\.ndjson/.exec(l)?.[1])
        .sort(),
    ).toEqual(['north', 'south']);
    expect(lines[1]).toMatch(/ago +complete \d+s ago$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
    // --columns chooses the table's columns, and JSON's members.
    const chosen = await cnvOnTerminal(['export', 'state', 'list', '--columns', 'output,rows'], { env, columns: 120 });
    expect(chosen.stdout.split('\n')[0]).toMatch(/^output +rows$/);
    expect(chosen.stdout).toMatch(/north\.ndjson \(\d+ bytes\)/);
    expect(JSON.parse((await cnv(['export', 'state', 'list', '--columns', 'rows,output'], { env })).stdout)[0]).toEqual(
      { rows: items[0].rows, output: items[0].output },
    );
    const csv = (await cnv(['export', 'state', 'list', '--columns', 'rows,output', '-o', 'csv'], { env })).stdout.split(
      '\n',
    );
    expect(csv[0]).toBe('rows,output');
    expect(csv[1]).toBe(`${items[0].rows},"${JSON.stringify(items[0].output).replace(/"/g, '""')}"`);
    // Without --columns: an object's column holds it whole, and its members are not repeated in _extra.
    const whole = parse((await cnv(['export', 'state', 'list', '-o', 'csv'], { env })).stdout, {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(JSON.parse(whole[0].output)).toEqual(items[0].output);
    expect(
      whole[0]._extra === '' ||
        !Object.keys(JSON.parse(whole[0]._extra)).some((k) => k.startsWith('output.') || k.startsWith('lastRun.')),
    ).toBe(true);
  });

  it('list commands: --paginate walks every page like --all; --summary-json holds the next cursor; on a terminal the cursor line comes after the table', async () => {
    const env = freshEnv();
    const all = JSON.parse((await cnv(['campaigns', 'list', '--all'], { env })).stdout) as Array<{ id: string }>;
    const paginated = await cnv(['campaigns', 'list', '--paginate', '--limit', '2'], { env });
    expect(paginated.exitCode, paginated.stderr).toBe(0);
    expect(JSON.parse(paginated.stdout).map((c: { id: string }) => c.id)).toEqual(all.map((c) => c.id));

    const summary = join(outDir(), 'page.json');
    const first = await cnv(['campaigns', 'list', '--limit', '2', '--summary-json', summary], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const page = JSON.parse(readFileSync(summary, 'utf8'));
    expect(page).toMatchObject({
      command: 'campaigns list',
      status: 'complete',
      rows: 2,
      pages: 1,
      moreRemains: true,
      nextCursor: expect.any(String),
    });
    const next = await cnv(['campaigns', 'list', '--limit', '2', '--cursor', page.nextCursor], { env });
    expect(JSON.parse(next.stdout).map((c: { id: string }) => c.id)).toEqual(all.slice(2, 4).map((c) => c.id));
    // Past the last page: no cursor left.
    await cnv(['campaigns', 'list', '--all', '--limit', '50', '--summary-json', summary], { env });
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
      rows: all.length,
      pages: Math.ceil(all.length / 50),
      nextCursor: null,
      moreRemains: false,
    });
    // A run that fails says so, with the cursor of the page it failed on, to retry from.
    await fx.faults({ failNext: 1 });
    expect(
      (
        await cnv(
          ['campaigns', 'list', '--all', '--cursor', page.nextCursor, '--max-retries', '0', '--summary-json', summary],
          { env },
        )
      ).exitCode,
    ).toBe(7);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
      status: 'failed',
      rows: 0,
      pages: 0,
      nextCursor: page.nextCursor,
      moreRemains: true,
    });
    // stdout carries the rows: the summary cannot go there.
    const dash = await cnv(['campaigns', 'list', '--summary-json', '-'], { env });
    expect(dash.exitCode).toBe(2);
    expect(dash.stderr).toMatch(
      /^error: conflicting_options: --summary-json -: stdout carries the rows\nhint: give --summary-json a file name\n$/,
    );

    const shown = await cnvOnTerminal(['campaigns', 'list', '--limit', '2'], { env });
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +name/);
    expect(lines.at(-1)).toMatch(/^next page: --cursor \S+ \(or --all for every page\)$/);
  });

  it('version --json -q works; --columns chooses the members of JSON and NDJSON', async () => {
    const node = await cnv(['version', '--json', '-q', 'node']);
    expect(node).toMatchObject({ exitCode: 0, stdout: `${process.versions.node}\n` });
    expect((await cnv(['version', '-q', 'version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);

    const env = freshEnv();
    const json = JSON.parse(
      (await cnv(['campaigns', 'list', '--columns', 'name,type.name', '--json', '--limit', '3'], { env })).stdout,
    );
    expect(json).toHaveLength(3);
    for (const c of json) {
      expect(Object.keys(c)).toEqual(['name', 'type']);
      expect(Object.keys(c.type)).toEqual(['name']);
    }
    const ndjson = ndjsonRows(
      (await cnv(['fields', 'list', '--columns', 'key', '-o', 'ndjson', '--limit', '3'], { env })).stdout,
    );
    expect(ndjson.map((f) => Object.keys(f))).toEqual([['key'], ['key'], ['key']]);
  });
});

describe('help like gh', () => {
  it('a command lists its own flags, examples and JSON output first, inherited flags after them, then LEARN MORE', async () => {
    const help = (await cnv(['campaigns', 'list', '--help'])).stdout;
    const titles = help
      .split('\n')
      .filter((l) => /^[A-Z][A-Z ]+(\(|$)/.test(l))
      .map((l) => l.split(' (')[0]);
    expect(titles).toEqual(['USAGE', 'FLAGS', 'EXAMPLES', 'JSON OUTPUT', 'INHERITED FLAGS', 'LEARN MORE']);
    expect(section(help, 'FLAGS')).toMatch(/--columns[\s\S]*--paginate/);
    expect(section(help, 'FLAGS')).not.toMatch(/--profile/);
    expect(help.indexOf('--profile')).toBeGreaterThan(help.indexOf('\nINHERITED FLAGS\n'));
    expect(help.indexOf('$ cnv campaigns list')).toBeLessThan(help.indexOf('\nINHERITED FLAGS\n'));

    const group = (await cnv(['export', '--help'])).stdout;
    expect(group.indexOf('\nCOMMANDS\n')).toBeLessThan(group.indexOf('\nINHERITED FLAGS\n'));
    expect(section(group, 'COMMANDS')).not.toMatch(/^ {2}help/m);

    const top = (await cnv(['--help'])).stdout;
    expect(section(top, 'EXAMPLES')).toMatch(/\$ cnv contacts get/);
    expect(top).toMatch(/\nLEARN MORE\n {2}Use `cnv <command> <subcommand> --help`/);
    expect(top.indexOf('\nCOMMANDS\n')).toBeLessThan(top.indexOf('\nFLAGS'));
  });

  it("the emulator's help lists only the global flags that mean something to it", async () => {
    const inherited = section((await cnv(['emulator', '--help'])).stdout, 'INHERITED FLAGS');
    expect(inherited.trim()).toBe('--json, -q/--query, -v/--verbose, --quiet, --debug (see cnv --help)');
  });

  it('-q written as jq gets the JMESPath spelling; -f/-F and --field are told apart in one line each', async () => {
    const jq = await cnv(['campaigns', 'list', '-q', '.data[0]'], { env: freshEnv() });
    expect(jq.exitCode).toBe(2);
    expect(jq.stderr).toMatch(/hint: -q is JMESPath .*not jq: did you mean -q 'data\[0\]'\?/);
    expect((await cnv(['campaigns', 'list', '-q', '.[] | .name'])).stderr).toMatch(/did you mean -q '\[\]\.name'\?/);
    // jq's own operators have no plain rewrite: no wrong "did you mean", the rules instead.
    for (const q of ['.name // "x"', '[.[] | .id]']) {
      const res = await cnv(['campaigns', 'list', '-q', q]);
      expect(res.stderr, q).toMatch(/hint: -q is JMESPath \(as in the AWS CLI\), not jq: no leading dot/);
      expect(res.stderr, q).not.toContain('did you mean');
    }
    expect((await cnv(['help', 'api'])).stdout).toMatch(
      /-f and -F mean the same in `cnv contacts upsert`.*\n.*--field \(no short name\) is another flag: it converts the value by the field's definition/,
    );
    expect((await cnv(['help', 'contacts', 'upsert'])).stdout).toMatch(
      /-f and -F mean what they mean in `cnv api` .*--field, without a\s+short name, is the one that converts/,
    );
  });

  it('contacts list points at the export; help exit-codes says --debug', async () => {
    const list = await cnv(['contacts', 'list']);
    expect(list.exitCode).toBe(2);
    expect(list.stderr).toMatch(/hint: `cnv contacts list` does not exist: .*`cnv export contacts --no-state`/);
    const codes = (await cnv(['help', 'exit-codes'])).stdout;
    expect(codes).toMatch(/^ {2}1 +unexpected internal error.*\n.*--debug/m);
    expect(codes).not.toMatch(/--verbose/);
  });
});

describe('state and exports a newcomer understands', () => {
  // Issue 47: peeking moved a position. `--limit 100 | head -2` saved the default `/stdout` state, so
  // the next run started at row 101, and `--max-rows 3` twice showed different rows.
  it('an export to stdout keeps no position unless --state-key names one; the named one says so the first time', async () => {
    const env = freshEnv();
    const ids = (text: string) => ndjsonRows(text).map((r) => r.id);
    const first = await cnv(['export', 'contacts', '--max-rows', '3'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/note:/);
    const again = await cnv(['export', 'contacts', '--max-rows', '3'], { env });
    expect(ids(again.stdout)).toEqual(ids(first.stdout));
    const peek = await execa('sh', ['-c', `node '${BIN}' export contacts --limit 100 | head -2`], {
      env: cleanEnv(env),
      extendEnv: false,
      reject: false,
    });
    expect(ids(peek.stdout)).toEqual(ids(first.stdout).slice(0, 2));
    expect(JSON.parse((await cnv(['export', 'state', 'list'], { env })).stdout)).toEqual([]);

    const named = await cnv(['export', 'contacts', '--max-rows', '3', '--state-key', 'peek'], { env });
    expect(named.stderr).toMatch(
      /note: export state "peek" keeps this position: the next run with --state-key peek prints only what is new since/,
    );
    const next = await cnv(['export', 'contacts', '--max-rows', '3', '--state-key', 'peek'], { env });
    expect(next.stderr).not.toMatch(/note:/);
    expect(ids(next.stdout)).not.toEqual(ids(named.stdout));
    // A pipeline's --defer-commit and --run need the state a key names.
    const deferred = await cnv(['export', 'contacts', '--defer-commit'], { env });
    expect(deferred.stderr).toMatch(/error: usage: --defer-commit: rows to stdout keep no position unless --state-key/);
    expect(deferred.exitCode).toBe(2);
  });

  // Issue 47: set-key saved a bogus key without a word; the error came at first use.
  it('config set-key checks the key with one request (GET /v2/campaigns?limit=1): refused is exit 4 and not saved; --no-verify saves offline', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    const bogus = 'sk_live_bogus_0123456789abcdef0123456789abcdef';
    const refused = await cnv(['config', 'set-key', '--base-url', fx.emulator.url], { env, input: bogus });
    expect(refused.stderr).toMatch(
      /error: unauthorized: the API at http:\/\/127\.0\.0\.1:\d+ refused the key \(401 unauthorized: .*\); it was not saved\nhint: .*--no-verify/,
    );
    expect(refused.exitCode).toBe(4);
    expect(JSON.parse((await cnv(['config', 'list'], { env })).stdout)).toEqual([]);
    const unreachable = await cnv(['config', 'set-key', '--base-url', 'http://127.0.0.1:9', '--max-retries', '0'], {
      env,
      input: bogus,
    });
    expect(unreachable.stderr).toMatch(/the key was not saved\nhint: .*--no-verify \(offline\)/);
    expect(unreachable.exitCode).toBe(7);
    const offline = await cnv(['config', 'set-key', '--no-verify'], { env, input: bogus });
    expect(offline.stderr).toMatch(
      /saved API key sk_live_bogus_\*\*\*\* for profile "default"; not checked \(--no-verify\)/,
    );
    expect(offline.exitCode).toBe(0);
    const good = await cnv(['config', 'set-key', '--base-url', fx.emulator.url], { env, input: fx.emulator.keys.full });
    expect(good.stderr).toMatch(
      /saved API key sk_live_demo_\*\*\*\* .*; checked: GET \/v2\/campaigns at http:\/\/127\.0\.0\.1:\d+ accepted it/,
    );
    expect(good.exitCode).toBe(0);
  });

  it('closed stdout (>&-): exit 141 naming it, nothing fetched or committed, with or without a state key', async () => {
    const env = freshEnv();
    for (const args of [[], ['--state-key', 'closed']]) {
      const res = await execa('sh', ['-c', `node '${BIN}' export contacts ${args.join(' ')} >&-`], {
        env: cleanEnv(env),
        extendEnv: false,
        reject: false,
      });
      expect(res.stderr).toMatch(/error: stdout_closed: stdout is closed \(>&-\): the rows would go nowhere/);
      expect(res.exitCode).toBe(141);
    }
    expect(JSON.parse((await cnv(['export', 'state', 'list'], { env })).stdout)).toEqual([]);
  });

  it('completion offers the keys of real state files', async () => {
    const env = freshEnv();
    const out = join(outDir(), 'complete.ndjson');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const key = JSON.parse((await cnv(['export', 'state', 'list'], { env })).stdout)[0].key as string;
    expect(key).toContain(out);
    expect((await cnv(['__complete', '--', 'export', 'state', 'show', ''], { env })).stdout).toBe(`${key}\n`);
    expect(
      (await cnv(['__complete', '--', 'export', 'contacts', '--state-key', key.slice(0, 8)], { env })).stdout,
    ).toBe(`${key}\n`);
  });

  it('two profiles of one account continue one state; a profile of another key gets file_not_empty naming the state that writes the file', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    for (const [profile, key] of [
      ['north', fx.emulator.keys.full],
      ['south', fx.emulator.keys.full],
      ['west', fx.emulator.keys.limited],
    ]) {
      const set = await cnv(['--profile', profile, 'config', 'set-key', '--base-url', fx.emulator.url], {
        env,
        input: key,
      });
      expect(set.exitCode, set.stderr).toBe(0);
    }
    const out = join(outDir(), 'shared.ndjson');
    const key = `sk_live_demo@${new URL(fx.emulator.url).host}/contacts:${out}`;
    expect((await cnv(['--profile', 'north', 'export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const same = await cnv(['--profile', 'south', 'export', 'contacts', '--out', out], { env });
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stderr).toContain(`state "${key}" saved`);
    const other = await cnv(['--profile', 'west', 'export', 'contacts', '--out', out], { env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/error: file_not_empty: /);
    expect(other.stderr).toContain(
      `hint: export state "${key}" of the account sk_live_demo@${new URL(fx.emulator.url).host} writes this file, not this key's (sk_live_limited@`,
    );
    // Named explicitly, it is still another account's.
    const taken = await cnv(['--profile', 'west', 'export', 'contacts', '--out', out, '--state-key', key], { env });
    expect(taken.exitCode).toBe(2);
    expect(taken.stderr).toContain(
      `error: state_of_another_account: export state "${key}" belongs to the account sk_live_demo@`,
    );
  });

  it('a first export refused before any page leaves no file and prints one error, no summary', async () => {
    const env = { ...freshEnv(), CNV_API_KEY: fx.emulator.keys.basic };
    const out = join(outDir(), 'refused.ndjson');
    const res = await cnv(['export', 'contacts', '--out', out], { env });
    expect(res.exitCode).toBe(4);
    expect(existsSync(out)).toBe(false);
    expect(res.stderr).not.toMatch(/export contacts failed:/);
    expect(res.stderr).toMatch(/^error: export_not_enabled: /m);
    // Its file can be used as a new one afterwards (no record of it was left behind).
    expect(
      (await cnv(['export', 'contacts', '--out', out], { env: { ...env, CNV_API_KEY: fx.emulator.keys.full } }))
        .exitCode,
    ).toBe(0);
    // A file that was there before is left as it was.
    const kept = join(outDir(), 'kept.ndjson');
    writeFileSync(kept, '');
    expect((await cnv(['export', 'contacts', '--out', kept], { env })).exitCode).toBe(4);
    expect(existsSync(kept)).toBe(true);
  });

  it('--since takes a duration (24h, 7d) and the summary says which time it was; a word is refused with the spelling to use', async () => {
    const env = freshEnv();
    const before = Date.now();
    const day = await cnv(['export', 'custom-events', '--since', '24h', '--no-state'], { env });
    expect(day.exitCode, day.stderr).toBe(0);
    const from = /occurredAt from (\S+) \(--since 24h\)/.exec(day.stderr)?.[1];
    expect(from).toMatch(ISO);
    expect(Math.abs(Date.parse(from!) - (before - 86_400_000))).toBeLessThan(60_000);
    // A cron line may carry a duration on every run: the state continues its saved window.
    const out = join(outDir(), 'week.ndjson');
    for (let run = 0; run < 2; run++) {
      const week = await cnv(['export', 'custom-events', '--since', '400w', '--out', out, '--json'], { env });
      expect(week.exitCode, week.stderr).toBe(0);
      expect(JSON.parse(week.stdout).window.since).toMatch(ISO);
    }
    // The later run kept the first run's window: its summary does not name the duration as what made it.
    await new Promise((r) => setTimeout(r, 1100));
    const later = await cnv(['export', 'custom-events', '--since', '400w', '--out', out], { env });
    expect(later.stderr).toMatch(
      /occurredAt from \S+Z \(the saved window; --since 400w was for a first run or --full\)/,
    );
    expect(ndjsonRows(out).length).toBeGreaterThan(0);
    const window = await cnv(['export', 'custom-events', '--since', '400w', '--until', '1h', '--no-state'], { env });
    expect(window.exitCode, window.stderr).toBe(0);
    expect(window.stderr).toMatch(/occurredAt from \S+Z until \S+Z \(--since 400w, --until 1h\)/);
    const word = await cnv(['export', 'custom-events', '--since', 'yesterday', '--no-state'], { env });
    expect(word.exitCode).toBe(2);
    expect(word.stderr).toMatch(
      /--since: expected a duration before now \(24h, 7d, 30m, 2w\).*got "yesterday" \(a word is not read: 24h says it\)/,
    );
    const ancient = await cnv(['export', 'custom-events', '--since', '999999w', '--no-state'], { env });
    expect(ancient.exitCode).toBe(2);
    expect(ancient.stderr).toMatch(/--since: 999999w before now is before 1970; give a date/);
  });

  it('a second run says why rows an earlier run wrote were left out', async () => {
    const env = freshEnv();
    const out = join(outDir(), 'again.ndjson');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const again = await cnv(['export', 'contacts', '--out', out], { env });
    expect(again.stderr).toMatch(
      /complete: nothing new since the last run \([\d,]+ rows? of the last page fetched again: already written, left out\)/,
    );
  });
});

describe('progress that knows the end (on a terminal)', () => {
  it('a file run shows rows of the total, the share done and the time left', async () => {
    const env = freshEnv();
    const file = join(outDir(), 'events.ndjson');
    writeFileSync(
      file,
      Array.from({ length: 160 }, (_, i) =>
        JSON.stringify({ event: 'progress_test', email: FIXTURE_CONTACTS.ada.email, data: { n: i } }),
      ).join('\n') + '\n',
    );
    await fx.faults({ latencyMs: 10 });
    const res = await cnvOnTerminal(
      ['events', 'track', '--file', file, '--concurrency', '1', '--report', join(outDir(), 'r.csv')],
      { env, stdoutFile: '/dev/null' },
    );
    expect(res.exitCode, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/\d+ \/ ~?160 rows \(\d+%\) · \d+ rows\/s · about \d+s left · 0 failed or invalid/);
  });

  it('an export shows rows and pages so far and the rate', async () => {
    await fx.faults({ latencyMs: 150 });
    const res = await cnvOnTerminal(['export', 'contacts', '--no-state', '--limit', '200', '--max-pages', '8'], {
      env: freshEnv(),
      stdoutFile: '/dev/null',
    });
    expect(res.exitCode, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/export contacts: [\d,]+ rows, \d+ pages, [\d,]+ rows\/s/);
  });

  // Issue 47: `cnv export contacts | jq` drew spinner frames among jq's lines (stderr is the terminal).
  it('stdout into another program: no spinner on the terminal they share, only the summary', async () => {
    await fx.faults({ latencyMs: 150 });
    const res = await cnvOnTerminal(['export', 'contacts', '--limit', '200', '--max-pages', '8'], {
      env: freshEnv(),
      pipeTo: 'cat',
    });
    expect(res.exitCode, res.stdout).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^export contacts stopped: 1,600 rows in 8 pages to stdout/);
    // Every other line is a row, whole: no frame, no progress line, no cursor movement among them.
    expect(lines.slice(0, -1).every((line) => line.startsWith('{"id":') && line.endsWith('}'))).toBe(true);
    expect(res.stdout).not.toMatch(/\x1b|\r|export contacts: [\d,]+ rows,/);
  });
});

// Issue 47: doctor's details were cut in their middle ("the ca…aign list has the API's shape"),
// unreadable at 120 columns. They wrap at spaces now: every word whole, at 80 columns as at 120.
describe('doctor on a terminal of 80 and 120 columns', () => {
  it.each([80, 120])('%i columns: every line fits, nothing is cut, each detail reads whole', async (columns) => {
    const env = freshEnv();
    const json = JSON.parse((await cnv(['doctor', '--json'], { env })).stdout) as Array<Record<string, string>>;
    const res = await cnvOnTerminal(['doctor', '--no-color'], { env, columns, rows: 200 });
    expect(res.exitCode, res.stdout).toBe(0);
    const lines = res.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('doctor: '));
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    expect(res.stdout).not.toContain('…');
    // The table read back: a line that starts a check, then the lines that go on with its cells.
    const at = { status: lines[0].indexOf('status'), detail: lines[0].indexOf('detail') };
    const read: Array<{ check: string; detail: string }> = [];
    for (const line of lines.slice(1)) {
      const check = line.slice(0, at.status).trim();
      const detail = line.slice(at.detail).trim();
      if (line.slice(at.status, at.detail).trim() !== '') read.push({ check, detail });
      else {
        const last = read[read.length - 1];
        last.check = `${last.check} ${check}`.trim();
        last.detail = `${last.detail} ${detail}`.trim();
      }
    }
    expect(read).toEqual(json.map(({ check, detail }) => ({ check, detail })));
  });
});

describe('small things', () => {
  // Issue 47: fields create of an existing field failed, which made an idempotent CI step awkward.
  it('fields create --if-missing: the matching field exists, exit 0 and that field; one that differs, exit 3 naming what', async () => {
    const create = (more: string[]) =>
      cnv(['fields', 'create', '--object-type', 'contact', '--data-type', 'string', ...more, '--json'], {
        env: fx.env,
      });
    const first = await create(['--label', 'CI tier', '--key', 'ciTier', '--if-missing']);
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await create(['--label', 'CI tier', '--key', 'ciTier', '--if-missing']);
    expect(again.exitCode, again.stderr).toBe(0);
    // The field as the account lists it (the list may show fewer members than the create answer).
    const { key, label, objectType, dataType } = JSON.parse(first.stdout) as Record<string, string>;
    expect(JSON.parse(again.stdout)).toMatchObject({ key, label, objectType, dataType });
    expect(again.stderr).toMatch(/field "ciTier" exists already as asked \(--if-missing\): nothing created/);
    const differs = await cnv(
      [
        'fields',
        'create',
        '--label',
        'CI level',
        '--object-type',
        'contact',
        '--data-type',
        'number',
        '--key',
        'ciTier',
        '--if-missing',
      ],
      { env: fx.env },
    );
    expect(differs.stderr).toMatch(
      /error: field_differs: field "ciTier" exists, but differs from the one asked for: data type STRING, not NUMBER; label "CI tier", not "CI level"/,
    );
    expect(differs.exitCode).toBe(3);
    // Without --key, by label within the object type.
    const byLabel = await create(['--label', 'CI tier', '--if-missing']);
    expect([byLabel.exitCode, JSON.parse(byLabel.stdout).key]).toEqual([0, 'ciTier']);
    // Without --if-missing, as before: the key is taken, exit 3.
    expect((await create(['--label', 'CI tier', '--key', 'ciTier'])).exitCode).toBe(3);
  });

  // Issue 47: --out x.json silently wrote NDJSON, which a JSON reader refuses.
  it('--out FILE.json (and .json.gz) is refused, exit 2, naming .ndjson; nothing is written or saved', async () => {
    const env = freshEnv();
    for (const name of ['contacts.json', 'contacts.JSON.gz']) {
      const out = join(outDir(), name);
      const res = await cnv(['export', 'contacts', '--out', out], { env });
      expect(res.stderr).toMatch(
        /error: usage: --out .*: an export writes NDJSON \(one JSON object a line\) or CSV, not one JSON array\nhint: name it \.ndjson/,
      );
      expect(res.exitCode).toBe(2);
      expect(existsSync(out)).toBe(false);
    }
    expect(JSON.parse((await cnv(['export', 'state', 'list'], { env })).stdout)).toEqual([]);
  });

  // Issue 47: a mistyped API path was a bare not_found; --columns id,nam listed every name.
  it('did you mean: cnv api paths from the endpoint table (after the 404), --columns of a list and of an export', async () => {
    const path = await cnv(['api', 'GET', '/v2/campaign'], { env: fx.env });
    expect(path.stderr).toMatch(/^error: not_found: .*\nhint: did you mean \/v2\/campaigns\?$/m);
    expect(path.exitCode).toBe(5);
    const post = await cnv(['api', 'POST', 'exports/contact', '--paginate'], { env: fx.env });
    expect(post.stderr).toMatch(/hint: did you mean \/v2\/exports\/contacts\?/);
    // A path the table has: the resource is what is missing, no guess.
    const known = await cnv(['api', 'GET', '/v2/campaigns/nope'], { env: fx.env });
    expect([known.exitCode, known.stderr]).toEqual([5, expect.not.stringMatching(/did you mean/)]);
    const columns = await cnv(['campaigns', 'list', '--columns', 'id,nam'], { env: fx.env });
    expect(columns.stderr).toBe('error: usage: --columns: no column "nam"\nhint: did you mean name?\n');
    expect(columns.exitCode).toBe(2);
    const csv = await cnv(['export', 'contacts', '--no-state', '-o', 'csv', '--columns', 'id,emial'], { env: fx.env });
    expect(csv.stderr).toMatch(/--columns: no column "emial" in a contacts export\nhint: did you mean email\?/);
    expect(csv.exitCode).toBe(2);
  });

  it('no_base_url names the profile in use in the set-url command it suggests', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnv(['--profile', 'b', 'config', 'set-key'], { env, input: fx.emulator.keys.full })).exitCode).toBe(
      0,
    );
    const res = await cnv(['--profile', 'b', 'campaigns', 'list'], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/hint: .*`cnv --profile b config set-url URL`/);
  });

  it('records upsert --check: a column with mismatches is "mismatch", in red on a terminal, not a green "ok"', async () => {
    const file = join(outDir(), 'check.csv');
    writeFileSync(file, 'clientDedupKey,seats,planName\nux-1,1,Pro\nux-2,two,Pro\n');
    const res = await cnvOnTerminal(['records', 'upsert', FIXTURE_CUSTOM_OBJECT.id, '--file', file, '--check'], {
      env: freshEnv(),
      columns: 140,
    });
    expect(res.exitCode).toBe(6);
    expect(res.stdout).toMatch(/seats +\x1b\[31mmismatch\x1b\[39m +NUMBER +1 /);
    expect(res.stdout).toMatch(/planName +\x1b\[32mok\x1b\[39m/);
  });
});
