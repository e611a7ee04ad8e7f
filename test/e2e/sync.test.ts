import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cnv, cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// `contacts sync` through the binary: only what differs is sent, the plan says what would be,
// and what the account holds in the end is what the file says, across drift, kills, damage,
// duplicates and labels two fields share.

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-sync-');
const UPSERT = 'POST /v2/contacts';
const EXPORT = 'POST /v2/exports/contacts';

/** Requests the emulator processed on a route since the last stats reset. */
async function count(route: string): Promise<number> {
  const byStatus: Record<string, number> = (await fx.stats()).byRouteStatus?.[route] ?? {};
  return Object.entries(byStatus).reduce((n, [status, c]) => (status === '429' ? n : n + c), 0);
}

/** A config dir of its own: each test starts without a snapshot unless it says otherwise. */
function envWith(configDir = tempConfigDir(), extra: Record<string, string> = {}) {
  return { ...fx.env, CNV_CONFIG_DIR: configDir, ...extra };
}

const csv = (rows: Array<[string, string]>) => `email,city\n${rows.map(([e, c]) => `${e},${c}`).join('\n')}\n`;
const people = (tag: string, n: number, city = (i: number) => `City ${i}`) =>
  Array.from({ length: n }, (_, i): [string, string] => [`${tag}-${i}@example.com`, city(i)]);

async function city(email: string): Promise<unknown> {
  const got = await cnv(['contacts', 'get', '--email', email, '-q', 'fields.city'], { env: fx.env });
  return got.stdout.trim();
}

function planLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('contacts sync (binary)', () => {
  it('sends only the rows that differ; --plan shows them first and sends nothing; a second run fetches only what changed', async () => {
    const rows = people('only', 40);
    expect((await cnv(['contacts', 'upsert', '--file', write('seed.csv', csv(rows))], { env: fx.env })).exitCode).toBe(
      0,
    );
    const edited = rows.map(([e, c], i): [string, string] => [e, i % 10 === 3 ? `Moved ${i}` : c]);
    const file = write('edited.csv', csv([...edited, ['only-new@example.com', 'Oslo'], ['not-an-email', 'Nowhere']]));
    const env = envWith();
    await fx.resetStats();

    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(plan.exitCode).toBe(6); // the invalid row wins over --exit-code's 9
    expect(await count(UPSERT)).toBe(0);
    const lines = planLines(plan.stdout);
    const changes = lines.filter((l) => l.type === 'change');
    expect(changes.map((c) => [c.line, c.action])).toEqual([
      [5, 'update'],
      [15, 'update'],
      [25, 'update'],
      [35, 'update'],
      [42, 'create'],
    ]);
    expect(changes[0]).toMatchObject({
      contact: 'only-3@example.com',
      changes: [{ field: 'fields.city', old: 'City 3', new: 'Moved 3' }],
      unsure: null,
    });
    expect(changes[4].changes).toEqual([
      { field: 'email', old: null, new: 'only-new@example.com' },
      { field: 'fields.city', old: null, new: 'Oslo' },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', create: 1, update: 4, unchanged: 36, invalid: 1, unsure: 0 });

    const report = reportPath();
    const sent = await cnv(['contacts', 'sync', '--file', file, '--report', report, '--json'], { env });
    expect(sent.exitCode).toBe(6);
    expect(await count(UPSERT)).toBe(5);
    const byStatus = readReport(report).reduce<Record<string, number>>(
      (m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }),
      {},
    );
    expect(byStatus).toEqual({ unchanged: 36, updated: 4, created: 1, invalid: 1 });
    const summary = JSON.parse(sent.stdout);
    expect(summary.sync).toMatchObject({
      create: 1,
      update: 4,
      unchanged: 36,
      snapshot: { full: false, fetchedRows: 0 },
    });
    expect(await city('only-13@example.com')).toBe('Moved 13');
    expect(await city('only-new@example.com')).toBe('Oslo');

    // The next run reads only the 5 contacts this one changed, and finds nothing to send.
    await fx.resetStats();
    const again = await cnv(['contacts', 'sync', '--file', file, '--plan', '--summary-json', `${report}.json`], {
      env,
    });
    expect(again.exitCode).toBe(6);
    expect(planLines(again.stdout)).toEqual([
      expect.objectContaining({ type: 'summary', create: 0, update: 0, unchanged: 41, invalid: 1 }),
    ]);
    expect(JSON.parse(readFileSync(`${report}.json`, 'utf8')).sync.snapshot).toMatchObject({
      full: false,
      fetchedRows: 5,
      pages: 1,
    });
    expect(await count(EXPORT)).toBe(1);
  });

  it('--exit-code: 9 while the account differs, 0 once in sync; a table with the counts on a terminal', async () => {
    const env = envWith();
    const file = write('exit.csv', csv(people('exit', 3)));
    const first = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--quiet'], { env });
    expect(first.exitCode).toBe(9);
    expect(first.stderr).toBe('');
    expect((await cnv(['contacts', 'sync', '--file', file, '--exit-code'], { env })).exitCode).toBe(9);
    const inSync = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(inSync.exitCode).toBe(0);
    expect(planLines(inSync.stdout)).toEqual([
      expect.objectContaining({ type: 'summary', create: 0, update: 0, unchanged: 3 }),
    ]);
  });

  it('drift: a value changed in the account after the last sync is seen by the refresh, and the same file sets it back', async () => {
    const env = envWith();
    const file = write('drift.csv', csv(people('drift', 5)));
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    expect(
      (
        await cnv(
          ['contacts', 'upsert', '--email', 'drift-2@example.com', '--field', 'city=Changed in the dashboard'],
          { env: fx.env },
        )
      ).exitCode,
    ).toBe(0);
    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(planLines(plan.stdout).filter((l) => l.type === 'change')).toEqual([
      expect.objectContaining({
        action: 'update',
        contact: 'drift-2@example.com',
        changes: [{ field: 'fields.city', old: 'Changed in the dashboard', new: 'City 2' }],
      }),
    ]);
    await fx.resetStats();
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(1);
    expect(await city('drift-2@example.com')).toBe('City 2');
  });

  it('a file naming one contact twice applies its rows in order: once a row is sent, the later rows of that contact are sent too', async () => {
    const env = envWith();
    expect(
      (
        await cnv(
          [
            'contacts',
            'upsert',
            '--file',
            write(
              'dup-seed.csv',
              csv([
                ['dup-a@example.com', 'B'],
                ['dup-c@example.com', 'X'],
              ]),
            ),
          ],
          { env: fx.env },
        )
      ).exitCode,
    ).toBe(0);
    const file = write(
      'dups.csv',
      csv([
        ['dup-a@example.com', 'A'],
        ['dup-c@example.com', 'X'],
        ['DUP-A@example.com', 'B'],
        ['dup-c@example.com', 'X'],
      ]),
    );
    const report = reportPath();
    await fx.resetStats();
    const res = await cnv(['contacts', 'sync', '--file', file, '--report', report], { env });
    expect(res.exitCode).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(['updated', 'unchanged', 'updated', 'unchanged']);
    expect(readReport(report)[2].message).toMatch(/cannot be sure.*an earlier row of the file changes this contact/);
    expect(await count(UPSERT)).toBe(2);
    expect(await city('dup-a@example.com')).toBe('B');
    expect(res.stderr).toMatch(/1 sent because cnv cannot be sure they match \(1 earlier row, same contact\)/);
  });

  it('values compare as the API stores them: every digit of a NUMBER, 1.50 as 1.5, booleans and dates by their type', async () => {
    const env = envWith();
    const seed = write(
      'digits-seed.ndjson',
      '{"email":"digits@example.com","fields":{"score":9007199254740993}}\n{"email":"decimal@example.com","fields":{"score":1.5,"vip":true}}\n',
    );
    expect((await cnv(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const same = write(
      'digits.csv',
      'email,score,vip\ndigits@example.com,9007199254740993,\ndecimal@example.com,1.50,yes\n',
    );
    expect(planLines((await cnv(['contacts', 'sync', '--file', same, '--plan'], { env })).stdout)).toEqual([
      expect.objectContaining({ type: 'summary', unchanged: 2, update: 0 }),
    ]);
    const off = write('digits-off.csv', 'email,score\ndigits@example.com,9007199254740992\n');
    const plan = await cnv(['contacts', 'sync', '--file', off, '--plan'], { env });
    expect(plan.stdout).toContain('"changes":[{"field":"fields.score","old":9007199254740993,"new":9007199254740992}]');
  });

  it("cnv's own CSV export, synced back as it is, changes nothing and sends nothing", async () => {
    const env = envWith();
    const exported = `${write('x', '')}.csv`;
    expect((await cnv(['export', 'contacts', '--no-state', '--out', exported], { env: fx.env })).exitCode).toBe(0);
    await fx.resetStats();
    const res = await cnv(['contacts', 'sync', '--file', exported, '--plan', '--exit-code'], { env });
    expect(res.exitCode).toBe(0);
    const summary = planLines(res.stdout).at(-1)!;
    expect(summary).toMatchObject({ create: 0, update: 0, invalid: 0 });
    expect(summary.unchanged).toBeGreaterThan(2000);
    expect(await count(UPSERT)).toBe(0);
  });

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

  it('the refresh runs while the file is read; a file refused meanwhile stops it: exit 2 at once, the lock released, the next run whole', async () => {
    const env = envWith();
    await fx.faults({ latencyMs: 300 });
    await fx.resetStats();
    try {
      const bad = await cnv(
        ['contacts', 'sync', '--file', write('bad-column.csv', 'email,ctiy\nbad-1@example.com,Oslo\n')],
        { env },
      );
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/^error: .*ctiy/m);
      expect(await count(UPSERT)).toBe(0);
    } finally {
      await fx.clearFaults();
    }
    const good = await cnv(
      ['contacts', 'sync', '--file', write('good-column.csv', 'email,city\nbad-1@example.com,Oslo\n'), '--json'],
      { env },
    );
    expect(good.exitCode, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout).sync).toMatchObject({ create: 1 });
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

  it('a damaged snapshot is never trusted: rebuilt by a full refresh, with a note', async () => {
    const configDir = tempConfigDir();
    const env = envWith(configDir);
    const file = write('damage.csv', csv([['ada@example.com', 'London']]));
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const states = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
      output: { path: string };
    }>;
    const state = states.find((s) => s.key.endsWith('/contacts-sync'))!;
    expect(state.output.path).toContain(`${configDir}/sync/`);
    expect(statSync(state.output.path).mode & 0o777).toBe(0o600);
    // One value changed in place, far from the end (the export's own check reads only the last 64 KiB).
    const text = readFileSync(state.output.path, 'utf8');
    expect(text.indexOf('"City":"London"')).toBeLessThan(text.length - 100_000);
    writeFileSync(state.output.path, text.replace('"City":"London"', '"City":"Paris!"'));
    const res = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(res.stderr).toMatch(
      /note: the snapshot .* is damaged \(its SHA-256 is not the one recorded when it was written\): rebuilding it from a full refresh/,
    );
    expect(res.exitCode).toBe(0);
    expect(planLines(res.stdout).at(-1)).toMatchObject({ unchanged: 1 });

    // Cut short, or its state reset: rebuilt too, never refused.
    writeFileSync(state.output.path, readFileSync(state.output.path).subarray(0, 5000));
    const cut = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(cut.stderr).toMatch(
      /note: the snapshot .* is damaged \(it ends at byte \d+, before the \d+ bytes its state committed\): rebuilding/,
    );
    expect(cut.exitCode).toBe(0);
    expect((await cnv(['export', 'state', 'reset', state.key, '--yes'], { env })).exitCode).toBe(0);
    const reset = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
    expect(reset.exitCode).toBe(0);
    expect(reset.stderr).toMatch(/snapshot: \d+ contacts, full refresh/);
  });

  it('the seal covers the field labels and every row: an edited label or row means a full refresh, and the row that differs is sent, never a trusted skip', async () => {
    const seed = write(
      'seal-seed.ndjson',
      [
        '{"email":"seal-label@example.com","fields":{"city":"London","lastName":"Lovelace"}}',
        '{"email":"seal-row@example.com","fields":{"city":"London","lastName":"Hopper"}}',
      ].join('\n') + '\n',
    );
    expect((await cnv(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const env = envWith();
    const synced = csv([
      ['seal-label@example.com', 'London'],
      ['seal-row@example.com', 'London'],
    ]);
    expect((await cnv(['contacts', 'sync', '--file', write('seal-0.csv', synced)], { env })).exitCode).toBe(0);
    const states = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
      output: { path: string };
    }>;
    const { key, output } = states.find((s) => s.key.endsWith('/contacts-sync'))!;
    const snapshotFile = output.path;
    const { stateFile } = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout);
    const sync = async (name: string, rows: Array<[string, string]>) => {
      const report = reportPath();
      const res = await cnv(['contacts', 'sync', '--file', write(name, csv(rows)), '--report', report, '--json'], {
        env,
      });
      expect(res.exitCode, res.stderr).toBe(0);
      return { res, statuses: readReport(report).map((r) => r.status) };
    };

    // The labels part (sealed in the snapshot's state, with its position): "city" and "lastName"
    // swap labels, so a trusted map would read city as "Lovelace".
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
    for (const segment of saved.state.current.seal.of.fields as Array<{ keys: string[]; labels: string[] }>) {
      const [city, last] = [segment.keys.indexOf('city'), segment.keys.indexOf('lastName')];
      [segment.labels[city], segment.labels[last]] = [segment.labels[last], segment.labels[city]];
    }
    writeFileSync(stateFile, JSON.stringify(saved));
    const labels = await sync('seal-1.csv', [['seal-label@example.com', 'Lovelace']]);
    expect(labels.res.stderr).toMatch(
      /note: the snapshot .* is damaged \(its SHA-256 is not the one recorded when it was written\): rebuilding it from a full refresh/,
    );
    expect(JSON.parse(labels.res.stdout).sync).toMatchObject({ update: 1, unchanged: 0, snapshot: { full: true } });
    expect(labels.statuses).toEqual(['updated']);
    expect(await city('seal-label@example.com')).toBe('Lovelace');

    // A row: seal-row's city edited to what the file says, while the account still holds London.
    const lines = readFileSync(snapshotFile, 'utf8').split('\n');
    const edited = lines.map((l) => (l.includes('"seal-row@example.com"') ? l.replace('"London"', '"Rome!!"') : l));
    expect(edited).not.toEqual(lines);
    writeFileSync(snapshotFile, edited.join('\n'));
    const row = await sync('seal-2.csv', [['seal-row@example.com', 'Rome!!']]);
    expect(row.res.stderr).toMatch(/note: the snapshot .* is damaged .*: rebuilding it from a full refresh/);
    expect(JSON.parse(row.res.stdout).sync).toMatchObject({ update: 1, unchanged: 0, snapshot: { full: true } });
    expect(row.statuses).toEqual(['updated']);
    expect(await city('seal-row@example.com')).toBe('Rome!!');
  });

  it('a FIFO or a symlink where the snapshot belongs is refused at once (exit 8, naming it); two syncs of one account never run at once (exit 7)', async () => {
    const configDir = tempConfigDir();
    const env = envWith(configDir);
    const file = write('fifo.csv', csv([['fifo@example.com', 'Here']]));
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const states = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
      output: { path: string };
    }>;
    const path = states.find((s) => s.key.endsWith('/contacts-sync'))!.output.path;
    rmSync(path);
    execFileSync('mkfifo', [path]);
    const fifo = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env, timeoutMs: 10_000 });
    expect(fifo.exitCode).toBe(8);
    expect(fifo.stderr).toContain(path);
    rmSync(path);
    // A symlink there is never followed (it could point at any file of the user's).
    const elsewhere = write('elsewhere.ndjson', 'not mine\n');
    symlinkSync(elsewhere, path);
    const link = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(link.exitCode).toBe(8);
    expect(link.stderr).toMatch(/is a symbolic link, not a regular file: remove it/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not mine\n');
    rmSync(path);

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

  it('an earlier row that changes which contact an email finds: the later rows by that email are sent, and the account ends as upsert --file leaves it', async () => {
    const id = async (args: string[]) =>
      (await cnv(['contacts', 'upsert', ...args, '-q', 'cnvContactId'], { env: fx.env })).stdout.trim();
    // Two contacts share twin-a: older (city A), newer (city B). Another, moving-b, will be moved onto twin-b (city B).
    const older = await id(['--email', 'twin-a@example.com', '--field', 'city=A']);
    const newer = await id(['--email', 'twin-a-other@example.com', '--field', 'city=B']);
    expect(
      (await cnv(['contacts', 'upsert', '--contact-id', newer, '--email', 'twin-a@example.com'], { env: fx.env }))
        .exitCode,
    ).toBe(0);
    await id(['--email', 'twin-b@example.com', '--field', 'city=B']);
    const moving = await id(['--email', 'moving-b@example.com', '--field', 'city=A']);
    // Row 2 makes the older twin-a the most recently updated: row 3 then updates it, not the newer one.
    // Row 4 gives moving-b the address twin-b: row 5 then updates it.
    const file = write(
      'twins.csv',
      `cnvContactId,email,city\n${older},,C\n,twin-a@example.com,B\n${moving},twin-b@example.com,\n,twin-b@example.com,B\n`,
    );
    const report = reportPath();
    const res = await cnv(['contacts', 'sync', '--file', file, '--report', report], { env: envWith() });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(['updated', 'updated', 'updated', 'updated']);
    expect(readReport(report)[1].message).toMatch(/cannot be sure.*an earlier row of the file/);
    const cities = async (email: string) =>
      Object.fromEntries(
        (
          (await fx.admin('GET', `/_emulator/state/contacts?email=${email}`)) as Array<{
            id: string;
            fields: { city: string };
          }>
        ).map((c) => [c.id, c.fields.city]),
      );
    expect(await cities('twin-a@example.com')).toEqual({ [older]: 'B', [newer]: 'B' });
    expect((await cities('twin-b@example.com'))[moving]).toBe('B');
  });

  it('rows that reach one contact by different identifiers are sent in file order, even concurrently', async () => {
    const id = async (args: string[]) =>
      (await cnv(['contacts', 'upsert', ...args, '-q', 'cnvContactId'], { env: fx.env })).stdout.trim();
    const older = await id(['--email', 'order-twin@example.com', '--field', 'city=A']);
    const newer = await id(['--email', 'order-other@example.com', '--field', 'city=B']);
    expect(
      (await cnv(['contacts', 'upsert', '--contact-id', newer, '--email', 'order-twin@example.com'], { env: fx.env }))
        .exitCode,
    ).toBe(0);
    // Rows 2 and 3 change the older twin by its id; row 4, by email, then reaches it too (the most
    // recently updated): it must not overtake them, though it names the contact otherwise.
    const file = write('order.csv', `cnvContactId,email,city\n${older},,C\n${older},,D\n,order-twin@example.com,B\n`);
    const res = await cnv(['contacts', 'sync', '--file', file, '--concurrency', '8'], { env: envWith() });
    expect(res.exitCode, res.stderr).toBe(0);
    const cities = (await fx.admin('GET', '/_emulator/state/contacts?email=order-twin@example.com')) as Array<{
      id: string;
      fields: { city: string };
    }>;
    expect(Object.fromEntries(cities.map((c) => [c.id, c.fields.city]))).toEqual({ [older]: 'B', [newer]: 'B' });
  });

  it('a field whose label is how the export spells a shared label ("Rank (rank2)"): its rows are sent, as unsure', async () => {
    for (const [key, label] of [
      ['rank1', 'Rank'],
      ['rank2', 'Rank'],
      ['rank3', 'Rank (rank2)'],
    ]) {
      expect(
        (
          await cnv(
            ['fields', 'create', '--label', label, '--key', key, '--object-type', 'CONTACT', '--data-type', 'STRING'],
            { env: fx.env },
          )
        ).exitCode,
      ).toBe(0);
    }
    const seed = write(
      'rank-seed.ndjson',
      '{"email":"rank@example.com","fields":{"rank1":"gold","rank2":"silver","rank3":"bronze"}}\n',
    );
    expect((await cnv(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    // The export shows rank2 under "Rank (rank2)": that is not rank3's value.
    const file = write('rank.csv', 'email,fields.rank3\nrank@example.com,silver\n');
    const env = envWith();
    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(planLines(plan.stdout).at(-1)).toMatchObject({
      update: 1,
      unchanged: 0,
      unsureReasons: { 'shared label': 1 },
    });
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    expect(
      (
        await cnv(['contacts', 'get', '--email', 'rank@example.com', '-q', 'fields.rank3'], { env: fx.env })
      ).stdout.trim(),
    ).toBe('silver');
  });

  it('--dry-run refreshes the snapshot and prints the bodies of the rows that differ, sends none; with --exit-code, 9', async () => {
    const env = envWith();
    const file = write(
      'dry.csv',
      csv([
        ['ada@example.com', 'London'],
        ['dry-new@example.com', 'Oslo'],
      ]),
    );
    await fx.resetStats();
    const res = await cnv(['contacts', 'sync', '--file', file, '--dry-run', '--exit-code'], { env });
    expect(res.exitCode, res.stderr).toBe(9);
    expect(planLines(res.stdout)).toEqual([
      expect.objectContaining({
        dryRun: true,
        method: 'POST',
        path: '/v2/contacts',
        lines: [3],
        body: { email: 'dry-new@example.com', fields: { city: 'Oslo' } },
      }),
    ]);
    expect(res.stderr).toMatch(/sync: 1 to create, 0 to update, 1 unchanged/);
    expect(await count(UPSERT)).toBe(0);
    expect(await count(EXPORT)).toBeGreaterThan(0);
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

  it('a contact deleted in the account is not seen by an incremental refresh (documented); --full-refresh sees it and the row creates it again', async () => {
    const env = envWith();
    const file = write('deleted.csv', csv([['deleted@example.com', 'Gone']]));
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    expect((await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env })).exitCode).toBe(0);
    const [contact] = (await fx.admin('GET', '/_emulator/state/contacts?email=deleted@example.com')) as Array<{
      id: string;
    }>;
    await fx.admin('POST', `/_emulator/contacts/${contact.id}/delete`, {});
    // The export never lists a removed contact: the snapshot still holds it.
    expect((await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env })).exitCode).toBe(0);
    const full = await cnv(['contacts', 'sync', '--file', file, '--full-refresh', '--exit-code'], { env });
    expect(full.exitCode).toBe(9);
    expect(full.stderr).toMatch(/sync: 1 to create, 0 to update, 0 unchanged/);
    expect(await city('deleted@example.com')).toBe('Gone');
  });

  it('an account without the contacts export: exit 4, and the hint names contacts upsert --file', async () => {
    const env = envWith(tempConfigDir(), { CNV_API_KEY: fx.emulator.keys.basic });
    const res = await cnv(
      ['contacts', 'sync', '--file', write('gated.csv', csv([['gated@example.com', 'Oslo']])), '--plan'],
      { env },
    );
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(
      /error: export_not_enabled: contacts sync reads the account through the contacts export/,
    );
    expect(res.stderr).toMatch(/hint: send every row with `cnv contacts upsert --file FILE` instead/);
  });

  it('a label two fields share: rows with either field are sent, counted as unsure, and the account ends as the file says', async () => {
    for (const key of ['tier1', 'tier2']) {
      expect(
        (
          await cnv(
            ['fields', 'create', '--label', 'Tier', '--key', key, '--object-type', 'CONTACT', '--data-type', 'STRING'],
            { env: fx.env },
          )
        ).exitCode,
      ).toBe(0);
    }
    const seed = write('tier-seed.ndjson', '{"email":"tier@example.com","fields":{"tier1":"gold","tier2":"silver"}}\n');
    expect((await cnv(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const env = envWith();
    const file = write('tier.csv', 'email,fields.tier1\ntier@example.com,gold\n');
    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
    const [change, summary] = planLines(plan.stdout);
    expect(change).toMatchObject({
      action: 'update',
      unsure: 'the export shows fields tier1 and tier2 under one label, "Tier"',
    });
    expect(summary).toMatchObject({ update: 1, unsure: 1, unsureReasons: { 'shared label': 1 } });
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
