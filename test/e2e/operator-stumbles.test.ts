import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/lib/shell-word.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { outDir } from '../helpers/exports.js';
import { cnvOnTerminal } from '../helpers/terminal.js';

// Issue 38, "the operator's stumbles", through the built binary: what a tired operator or a gh
// user meets at the edges (deleting off a terminal, gh's flags, interrupted runs, plans, tables).

const fx = useEmulator({ rateLimit: 0 }, { faults: true, stats: true });
const freshEnv = () => ({ ...fx.env, CNV_CONFIG_DIR: tempConfigDir() });

describe('destructive commands off a terminal need --yes', () => {
  it('export state reset KEY: exit 2 naming --yes, the state kept; --yes deletes', async () => {
    const env = freshEnv();
    expect(
      (
        await cnv(['export', 'contacts', '--state-key', 'crm', '--max-rows', '2', '--out', join(outDir(), 'c.csv')], {
          env,
        })
      ).exitCode,
    ).toBe(0);
    const refused = await cnv(['export', 'state', 'reset', 'crm'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: confirmation_required: export state reset crm: --yes is required off a terminal \(nothing was deleted\)$/m,
    );
    expect((await cnv(['export', 'state', 'show', 'crm'], { env })).exitCode).toBe(0);
    const yes = await cnv(['export', 'state', 'reset', 'crm', '--yes'], { env });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await cnv(['export', 'state', 'show', 'crm'], { env })).exitCode).toBe(5);
  });

  it('config remove NAME (deletes a stored API key): exit 2 naming --yes, the profile kept; --yes deletes', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnv(['--profile', 'old', 'config', 'set-url', fx.emulator.url], { env })).exitCode).toBe(0);
    const refused = await cnv(['config', 'remove', 'old'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: confirmation_required: config remove old: --yes is required off a terminal/m,
    );
    expect(existsSync(join(env.CNV_CONFIG_DIR, 'config.json'))).toBe(true);
    expect((await cnv(['config', 'list', '--json'], { env })).stdout).toContain('"old"');
    expect((await cnv(['config', 'remove', 'old', '--yes'], { env })).exitCode).toBe(0);
    expect((await cnv(['config', 'list', '--json'], { env })).stdout).not.toContain('"old"');
  });
});

describe("gh's habits get a hint", () => {
  it('--jq names -q and JMESPath, with the JMESPath form of a simple jq path', async () => {
    const res = await cnv(['campaigns', 'list', '--jq', '.[].name'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe(
      "error: unknown_option: unknown option '--jq'\nhint: cnv has no --jq: -q/--query takes a JMESPath expression (not jq), e.g. -q '[].name' for jq's .[].name\n",
    );
    const piped = await cnv(['campaigns', 'list', '--jq=.[] | select(.id)'], { env: fx.env });
    expect(piped.stderr).toMatch(
      /^hint: cnv has no --jq: -q\/--query takes a JMESPath expression \(not jq\), e.g. -q '\[\].name'$/m,
    );
  });

  it("--json email,userId (gh's field list) names --columns where the command has it, else -q", async () => {
    const list = await cnv(['campaigns', 'list', '--json', 'name,id'], { env: fx.env });
    expect(list.exitCode).toBe(2);
    expect(list.stderr).toMatch(
      /^hint: --json takes no field list here \(it is a switch: the whole result as JSON\); choose fields with --columns: --columns name,id --json$/m,
    );
    const get = await cnv(['contacts', 'get', '--email', 'ada@example.com', '--json', 'email,userId'], { env: fx.env });
    expect(get.exitCode).toBe(2);
    expect(get.stderr).toMatch(
      /^hint: .*choose fields with -q \(JMESPath\): --json -q '\{email: email, userId: userId\}'$/m,
    );
    // The form the hint gives works.
    const fixed = await cnv(
      ['contacts', 'get', '--email', 'ada@example.com', '--json', '-q', '{email: email, userId: userId}'],
      { env: fx.env },
    );
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(Object.keys(JSON.parse(fixed.stdout))).toEqual(['email', 'userId']);
  });
});

describe('an interrupted file run says how to resume, and its report is kept', () => {
  const { write, reportPath, readReport } = batchFiles('cnv-stumbles-');
  const ROWS = 2_000;
  const route = 'POST /v2/contacts';

  it('Ctrl-C of contacts upsert --file --report: the hint is the exact command; a new run without --force or --resume-from-report is refused; the rate counts sent rows', async () => {
    await fx.faults({ latencyMs: 100 });
    const file = write(
      'odd name.csv',
      `email\n${Array.from({ length: ROWS }, (_, i) => `resume-${i}@example.com`).join('\n')}\n`,
    );
    const report = reportPath().replace(/\.csv$/, " it's.csv");
    const args = ['contacts', 'upsert', '--file', file, '--report', report, '--concurrency', '4'];
    const child = execa('node', [BIN, ...args], { env: fx.env, reject: false, timeout: 60_000, stdin: 'ignore' });
    while (((await fx.stats()).byRoute?.[route] ?? 0) < 40) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    const res = await child;
    expect(res.exitCode).toBe(130);
    const stderr = String(res.stderr);
    const again = `cnv contacts upsert --file ${shellWord(file)} --report ${shellWord(report)} --concurrency 4 --resume-from-report ${shellWord(report)}`;
    expect(stderr).toContain(`\nhint: rows not sent are "skipped" in ${report}; to send only those, run: ${again}`);
    const rows = readReport(report);
    const skipped = rows.filter((r) => r.status === 'skipped').length;
    expect(skipped).toBeGreaterThan(0);
    // 4 requests in flight at 100 ms each: about 40 rows/s, whatever number of rows were skipped.
    const summary = /^stopped early: (\d+) rows: (\d+) succeeded.* in ([\d.]+) (ms|s) \((\d+) rows\/s\)/m.exec(stderr);
    expect(summary, stderr).not.toBeNull();
    const seconds = Number(summary![3]) / (summary![4] === 'ms' ? 1000 : 1);
    expect(Number(summary![5])).toBeLessThanOrEqual(Math.ceil((ROWS - skipped) / seconds) + 1);
    expect(Number(summary![5])).toBeLessThan(ROWS / seconds);

    // The same command again: refused before anything is sent, the report untouched.
    await fx.clearFaults();
    await fx.resetStats();
    const before = readFileSync(report, 'utf8');
    const refused = await cnv(args, { env: fx.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `error: report_unfinished: --report ${report}: it holds an unfinished run (${skipped} rows "skipped" (the run was stopped before it sent them)); a new run would overwrite it\n`,
    );
    expect(refused.stderr).toContain(
      `hint: add --resume-from-report ${report} to send only the rows it does not mark done, or --force to overwrite it and send every row again\n`,
    );
    expect(readFileSync(report, 'utf8')).toBe(before);
    expect((await fx.stats()).byRoute?.[route] ?? 0).toBe(0);

    // The hint's command (run by a shell) sends only the skipped rows; the finished report may then be overwritten.
    const resumed = await execa('bash', ['-c', again.replace(/^cnv /, `node ${shellWord(BIN)} `)], {
      env: fx.env,
      reject: false,
      timeout: 60_000,
    });
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    expect((await fx.stats()).byRoute?.[route]).toBe(skipped);
    expect(readReport(report).filter((r) => r.status === 'skipped')).toHaveLength(0);
    expect((await cnv([...args, '--max-rows', '5'], { env: fx.env })).exitCode).toBe(0);
  }, 120_000);

  it('--force overwrites the report of an unfinished run; a report cut short by a kill counts as unfinished', async () => {
    const file = write('few.csv', 'email\nforce-1@example.com\nforce-2@example.com\n');
    const report = reportPath();
    const header = 'line,identifier,status,cnvContactId,error,message,row,hash,job\n';
    const job = '"{""command"":""contacts upsert"",""target"":null,""input"":""few.csv"",""account"":null}"';
    writeFileSync(report, `${header}2,force-1@example.com,created,c1,,,1,abc,${job}\n2,force-2@exa`);
    const refused = await cnv(['contacts', 'upsert', '--file', file, '--report', report], { env: fx.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: report_unfinished: .*it holds an unfinished run \(its last row was cut short \(the run was killed\)\)/m,
    );
    const forced = await cnv(['contacts', 'upsert', '--file', file, '--report', report, '--force'], { env: fx.env });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(['created', 'created']);
  });
});

describe('narrow terminals keep what tells rows apart (the table layer)', () => {
  it('export state list on 60 columns: keys that differ only at their end stay apart; state show on 120: the runs headings whole', async () => {
    const env = freshEnv();
    const dir = outDir();
    for (const name of ['north.ndjson', 'south.ndjson'])
      expect((await cnv(['export', 'contacts', '--out', join(dir, name), '--limit', '1000'], { env })).exitCode).toBe(
        0,
      );
    const list = await cnvOnTerminal(['export', 'state', 'list'], { env, columns: 60 });
    expect(list.exitCode, list.stdout).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    const keys = lines.slice(1).map((l) => l.split(/\s{2,}/)[0]);
    expect(new Set(keys).size).toBe(2);
    expect(keys.map((k) => /(orth|outh)\.ndjson$/.exec(k)?.[1]).sort()).toEqual(['orth', 'outh']);
    const key = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout)[0].key as string;
    expect((await cnv(['export', 'contacts', '--out', join(dir, 'north.ndjson')], { env })).exitCode).toBe(0);
    const show = await cnvOnTerminal(['export', 'state', 'show', key], { env, columns: 120 });
    const runs = show.stdout.split('\n');
    const heading = runs[runs.indexOf('runs:') + 1];
    expect(heading).toMatch(/^runId +status +startedAt +finishedAt +rows +pages +bytes +moreRemains$/);
    for (const line of runs) expect(line.length).toBeLessThanOrEqual(120);
  });
});

describe('the small ones', () => {
  it('email events of several types into one file: "1 page", not "1 pages"', async () => {
    const res = await cnv(
      ['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', '--out', join(outDir(), 'events.ndjson')],
      { env: freshEnv() },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^ {2}EMAIL_OPEN: complete, [\d,]+ rows in 1 page$/m);
    expect(res.stderr).not.toMatch(/\b1 pages\b/);
  });

  it('an unknown column is never pointed at a read-only field (Create Date is not near fields.createdBy)', async () => {
    const file = batchFiles('cnv-near-').write('created.csv', 'email,Create Date\nada@example.com,2024-01-01\n');
    const res = await cnv(['contacts', 'upsert', '--file', file, '--dry-run'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: unknown_column: .*"Create Date"/m);
    expect(res.stderr).not.toContain('createdBy');
    // A writable field still is suggested.
    const near = await cnv(
      [
        'contacts',
        'upsert',
        '--file',
        batchFiles('cnv-near-').write('city.csv', 'email,Ciyt\nada@example.com,Oslo\n'),
        '--dry-run',
      ],
      { env: fx.env },
    );
    expect(near.stderr).toMatch(/"Ciyt" \(nearest: fields\.city/);
  });

  it('doctor on a terminal: the summary line comes below the table', async () => {
    const res = await cnvOnTerminal(['doctor'], { env: fx.env, columns: 120 });
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^check +status +detail$/);
    expect(lines.at(-1)).toMatch(/^doctor: \d+ ok, \d+ warnings, 0 failed, \d+ not checked/);
    expect(lines.filter((l) => l.startsWith('doctor:'))).toHaveLength(1);
  });
});

describe('contacts sync --plan reads as a plan', () => {
  it('its own summary, no "(no rows)", contacts by their email, compact past 20 contacts (--plan-format full|compact)', async () => {
    const env = freshEnv();
    const dir = outDir();
    const all = join(dir, 'all.csv');
    expect((await cnv(['export', 'contacts', '--out', all, '--limit', '1000'], { env })).exitCode).toBe(0);
    const lines = readFileSync(all, 'utf8').split('\n');
    expect(lines[0]).toMatch(/^id,/);
    const same = join(dir, 'same.csv');
    writeFileSync(same, `${lines.slice(0, 4).join('\n')}\n`);
    const none = await cnvOnTerminal(['contacts', 'sync', '--file', same, '--plan', '--no-progress'], {
      env,
      columns: 120,
    });
    expect(none.exitCode, none.stdout).toBe(0);
    expect(none.stdout).not.toContain('(no rows)');
    expect(none.stdout).not.toContain('dry run, nothing sent');
    expect(none.stdout).toMatch(
      /^plan: 0 to create, 0 to update, 3 unchanged, 0 invalid; nothing sent \(3 rows in \d+ ms\)$/m,
    );
    expect(none.stdout).toMatch(/^Plan: 0 to create, 0 to update, 3 unchanged, 0 invalid\.$/m);
    // One contact's city changed: the full table, the contact by its email (the file has an id column).
    const one = join(dir, 'one.csv');
    const email = lines[1].split(',')[4];
    writeFileSync(one, `${lines[0]}\n${lines[1].replace(/,London,/, ',Paris,')}\n`);
    const full = await cnvOnTerminal(['contacts', 'sync', '--file', one, '--plan', '--no-progress'], {
      env,
      columns: 120,
    });
    expect(full.stdout).toMatch(
      new RegExp(`^2 +update +${email.replace(/\./g, '\\.')} +fields\\.city +London +Paris$`, 'm'),
    );
    expect(full.stdout).not.toMatch(/a0000000-0000-4000-8000-000000000001/);
    // 29 contacts with a new email: the counts first, then one line per contact, its change old -> new.
    const many = join(dir, 'many.csv');
    writeFileSync(
      many,
      `${lines[0]}\n${lines
        .slice(1, 30)
        .map((l) => l.replace('@', '.plan@'))
        .join('\n')}\n`,
    );
    const compact = await cnvOnTerminal(['contacts', 'sync', '--file', many, '--plan', '--no-progress'], {
      env,
      columns: 120,
      rows: 100,
    });
    const table = compact.stdout.split('\n').filter((l) => /^\d+ +update/.test(l));
    expect(compact.stdout).toMatch(/^line +action +contact +changes$/m);
    expect(table).toHaveLength(29);
    expect(table[0]).toMatch(/^2 +update +(\S+)\.plan@example\.com +email: \1@example\.com -> \1\.plan@example\.com$/);
    expect(compact.stdout.indexOf('Plan: 0 to create, 29 to update')).toBeLessThan(compact.stdout.indexOf(table[0]));
    const forced = await cnvOnTerminal(
      ['contacts', 'sync', '--file', many, '--plan', '--plan-format', 'full', '--no-progress'],
      { env, columns: 160, rows: 100 },
    );
    expect(forced.stdout).toMatch(/^line +action +contact +field +old +new$/m);
    expect((await cnv(['contacts', 'sync', '--file', many, '--plan-format', 'compact'], { env })).stderr).toMatch(
      /^error: conflicting_options: --plan-format: goes only with --plan$/m,
    );
  }, 120_000);
});

describe('long tables on a terminal go through a pager', () => {
  const pagerOut = () => join(outDir(), 'paged.txt');

  it('CNV_PAGER gets a table longer than the terminal; --no-pager, a short table or a pipe do not use it', async () => {
    const file = pagerOut();
    const paged = await cnvOnTerminal(['doctor'], {
      env: { ...fx.env, CNV_PAGER: `tee ${file}` },
      columns: 120,
      rows: 8,
    });
    expect(paged.exitCode, paged.stdout).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^check +status +detail\n/);
    expect(text.split('\n').length).toBeGreaterThan(8);
    // What the pager showed is what the terminal got (tee prints it), the summary below it.
    expect(paged.stdout).toContain(text.replace(/\n/g, '\n').split('\n')[1]);
    expect(paged.stdout.trimEnd().split('\n').at(-1)).toMatch(/^doctor: /);
    const off = pagerOut();
    expect(
      (
        await cnvOnTerminal(['doctor', '--no-pager'], {
          env: { ...fx.env, CNV_PAGER: `tee ${off}` },
          columns: 120,
          rows: 8,
        })
      ).exitCode,
    ).toBe(0);
    expect(existsSync(off)).toBe(false);
    const tall = pagerOut();
    expect(
      (await cnvOnTerminal(['doctor'], { env: { ...fx.env, CNV_PAGER: `tee ${tall}` }, columns: 120, rows: 100 }))
        .exitCode,
    ).toBe(0);
    expect(existsSync(tall)).toBe(false);
    const piped = pagerOut();
    expect((await cnv(['doctor', '-o', 'table'], { env: { ...fx.env, CNV_PAGER: `tee ${piped}` } })).exitCode).toBe(0);
    expect(existsSync(piped)).toBe(false);
  });

  it('a pager quit early is no error; a pager that does not exist is a warning, and the table is printed', async () => {
    const early = await cnvOnTerminal(['doctor'], { env: { ...fx.env, CNV_PAGER: 'head -1' }, columns: 120, rows: 8 });
    expect(early.exitCode).toBe(0);
    expect(early.stdout).not.toMatch(/EPIPE|error/i);
    expect(early.stdout.split('\n')[0]).toMatch(/^check +status +detail$/);
    const missing = await cnvOnTerminal(['doctor'], {
      env: { ...fx.env, CNV_PAGER: '/nonexistent/pager -R' },
      columns: 120,
      rows: 8,
    });
    expect(missing.exitCode).toBe(0);
    expect(missing.stdout).toMatch(
      /^warning: the pager "\/nonexistent\/pager -R" could not be started \(CNV_PAGER, PAGER\): printing directly/m,
    );
    expect(missing.stdout).toMatch(/^check +status +detail$/m);
    expect(missing.stdout).toMatch(/^config +\S*ok\b/m);
  });
});
