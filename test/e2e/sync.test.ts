import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cnv, cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { csv, people, planLines, syncTools, UPSERT } from '../helpers/sync-runs.js';

// `contacts sync` through the binary, for what only a real process shows: a kill -9 while it
// sends or at each step of the snapshot's refresh loses nothing, two syncs of one account never
// run at once, and a plan whose reader goes away ends quietly. What it decides and sends, and
// how it refreshes, is tried in-process (test/commands/contacts/sync*.test.ts).

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-sync-');
const { count, envWith } = syncTools(fx, cnv);

describe('contacts sync (binary)', () => {
  it('a kill -9 while sending loses nothing: the next run sends what still differs, and then the account holds the file', async () => {
    const env = envWith();
    const rows = people('kill', 120, (i) => `Killed ${i}`);
    const file = write('kill.csv', csv(rows));
    await fx.faults({ latencyMs: 10 });
    await fx.resetStats();
    const child = execa('node', [BIN, 'contacts', 'sync', '--file', file, '--concurrency', '2'], {
      env: cleanEnv(env),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    while ((await count(UPSERT)) < 30 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
    const before = await count(UPSERT);
    await fx.clearFaults();
    const rerun = await cnv(['contacts', 'sync', '--file', file], { env });
    expect(rerun.exitCode).toBe(0);
    // Only what the killed run had not applied is sent again.
    expect(await count(UPSERT)).toBeLessThanOrEqual(rows.length + 2);
    expect(await count(UPSERT)).toBeGreaterThanOrEqual(rows.length);
    expect(before).toBeLessThan(rows.length);
    const inSync = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(inSync.exitCode).toBe(0);
  });

  it('--report and --resume-from-report as upsert --file: after a kill -9 the resumed run skips the rows done, and the report has one result per row, unchanged included', async () => {
    const env = envWith();
    const rows = people('resume', 80, (i) => `Resumed ${i}`);
    // Ten rows already as the file says: they are reported unchanged, never sent.
    await cnv(['contacts', 'sync', '--file', write('resume-first.csv', csv(rows.slice(0, 10)))], { env });
    const file = write('resume.csv', csv(rows));
    const report = reportPath('resume-report.csv');
    await fx.faults({ latencyMs: 10 });
    await fx.resetStats();
    const child = execa('node', [BIN, 'contacts', 'sync', '--file', file, '--report', report, '--concurrency', '2'], {
      env: cleanEnv(env),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    while ((await count(UPSERT)) < 25 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
    await fx.clearFaults();
    const doneBefore = readReport(report).filter((r) => r.status === 'created' || r.status === 'unchanged');
    expect(doneBefore.length).toBeGreaterThanOrEqual(10);
    const sentBefore = await count(UPSERT);
    await fx.resetStats();
    const resumed = await cnv(
      ['contacts', 'sync', '--file', file, '--report', report, '--resume-from-report', report, '--json'],
      { env },
    );
    expect(resumed.exitCode).toBe(0);
    // The rows the report had as done are not sent again; the rest is.
    expect(await count(UPSERT)).toBeLessThanOrEqual(70 - (doneBefore.length - 10));
    expect(sentBefore + (await count(UPSERT))).toBeGreaterThanOrEqual(70);
    const final = readReport(report);
    expect(final.map((r) => Number(r.line))).toEqual(rows.map((_, i) => i + 2));
    expect(final.slice(0, 10).every((r) => r.status === 'unchanged')).toBe(true);
    // A row the killed run created but did not report is found by the refresh: unchanged now.
    expect(final.slice(10).every((r) => r.status === 'created' || r.status === 'unchanged')).toBe(true);
    expect(final.filter((r) => r.message.startsWith('done in an earlier run')).length).toBe(doneBefore.length);
    const inSync = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(inSync.exitCode).toBe(0);
  });

  it('a kill -9 at each step of the snapshot refresh: the next run resumes the snapshot and decides right', async () => {
    const file = write(
      'crash.csv',
      csv([
        ['crash-sync@example.com', 'Before'],
        ['ada@example.com', 'London'],
      ]),
    );
    for (const step of ['mid-write', 'before-state', 'after-state']) {
      const env = envWith();
      const killed = await cnv(['contacts', 'sync', '--file', file], {
        env: { ...env, CNV_TEST_CRASH_AT: `${step}:1` },
      });
      expect(killed.exitCode, step).not.toBe(0);
      const res = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
      expect(res.exitCode, step).toBe(0);
      expect(planLines(res.stdout).at(-1), step).toMatchObject({ create: 1, update: 0, unchanged: 1 });
    }
  });

  it('two syncs of one account never run at once (exit 7, naming the holder)', async () => {
    const env = envWith();
    const file = write('locked.csv', csv([['locked@example.com', 'Here']]));
    await fx.faults({ latencyMs: 400 });
    const slow = execa('node', [BIN, 'contacts', 'sync', '--file', file, '--full-refresh'], {
      env: cleanEnv(env),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    await new Promise((r) => setTimeout(r, 600));
    const second = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
    await fx.clearFaults();
    expect(second.exitCode).toBe(7);
    expect(second.stderr).toMatch(
      /error: locked: another run holds the lock of the contacts sync of sk_live_demo@[^ ]+\/contacts-sync/,
    );
    expect((await slow).exitCode).toBe(0);
  });

  it('a plan whose reader goes away (| head -1): exit 141, no error and no stack trace', async () => {
    const file = write('head.csv', csv(people('head', 3000)));
    const cmd = `node ${BIN} contacts sync --file ${file} --plan | head -1; exit \${PIPESTATUS[0]}`;
    const res = await execa('bash', ['-c', cmd], {
      env: cleanEnv(envWith()),
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(JSON.parse(res.stdout)).toMatchObject({ type: 'change', line: 2, action: 'create' });
    expect(res.exitCode, res.stderr).toBe(141);
    expect(res.stderr).not.toMatch(/EPIPE|^error:|at /m);
  });
});

describe('contacts sync: a kill during the first refresh (binary, 6,000 more contacts: two export pages)', () => {
  const big = useEmulator({ seedContacts: 6000 });

  it('the next run continues the snapshot from the pages the killed run committed (sealed with them), and decides right', async () => {
    const bulk1 = (
      await cnv(['contacts', 'get', '--email', 'bulk.1@example.com', '-q', 'fields.city'], { env: big.env })
    ).stdout.trim();
    const file = write(
      'first-kill.csv',
      csv([
        ['bulk.1@example.com', bulk1],
        ['bulk.2@example.com', 'Moved'],
      ]),
    );
    // Killed once the second page was fetched, or once it was written and fsynced but neither
    // its position nor its seal committed: the first page is committed, sealed, and what follows
    // it in the file is cut.
    for (const at of ['after-fetch:2', 'before-state:2']) {
      const env = { ...big.env, CNV_CONFIG_DIR: tempConfigDir() };
      const killed = await cnv(['contacts', 'sync', '--file', file, '--plan'], {
        env: { ...env, CNV_TEST_CRASH_AT: at },
      });
      expect(killed.exitCode, at).not.toBe(0);
      const summary = `${reportPath()}.json`;
      const res = await cnv(['contacts', 'sync', '--file', file, '--plan', '--summary-json', summary], { env });
      expect(res.exitCode, res.stderr).toBe(0);
      expect(res.stderr, at).not.toMatch(/note:/);
      const { snapshot } = JSON.parse(readFileSync(summary, 'utf8')).sync;
      expect(snapshot.full, at).toBe(false);
      expect(snapshot.fetchedRows, at).toBeLessThan(snapshot.contacts - 4000);
      expect(planLines(res.stdout).at(-1), at).toMatchObject({ create: 0, update: 1, unchanged: 1 });
    }
  });
});
