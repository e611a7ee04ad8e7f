import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { csv, planLines, syncTools, UPSERT } from '../../helpers/sync-runs.js';

// The snapshot's refresh, in-process against the emulator: it runs while the file is read, it
// commits the seal with the export's position, and a snapshot it cannot trust (damaged, of an
// earlier cnv, a special file in its place) is rebuilt or refused, never trusted. Kills during a
// refresh are tried through the binary (test/e2e/sync.test.ts).

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-sync-refresh-');
const { count, envWith, city, snapshotOf } = syncTools(fx, cnvInProcess);

type SavedState = { state: { current: Record<string, any> } };
const readState = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as SavedState;

describe('contacts sync: the refresh', () => {
  it('the refresh runs while the file is read; a file refused meanwhile stops it: exit 2 at once, the lock released, the next run whole', async () => {
    const env = envWith();
    await fx.faults({ latencyMs: 300 });
    await fx.resetStats();
    try {
      const bad = await cnvInProcess(
        ['contacts', 'sync', '--file', write('bad-column.csv', 'email,ctiy\nbad-1@example.com,Oslo\n')],
        { env },
      );
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/^error: .*ctiy/m);
      expect(await count(UPSERT)).toBe(0);
    } finally {
      await fx.clearFaults();
    }
    const good = await cnvInProcess(
      ['contacts', 'sync', '--file', write('good-column.csv', 'email,city\nbad-1@example.com,Oslo\n'), '--json'],
      { env },
    );
    expect(good.exitCode, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout).sync).toMatchObject({ create: 1 });
  });

  it("the seal is committed with the export's position: one state holds the file's length, the cursor and the seal of the rows and labels", async () => {
    const env = envWith();
    const file = write('sealed.csv', csv([['ada@example.com', 'London']]));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const { path, stateFile } = await snapshotOf(env);
    const { current } = readState(stateFile).state;
    expect(current.output.bytes).toBe(statSync(path).size);
    expect(current.seal.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(current.seal.of).toMatchObject({
      lines: readFileSync(path, 'utf8').split('\n').length - 1,
      fields: [{ from: 0, keys: expect.arrayContaining(['city']), labels: expect.arrayContaining(['City']) }],
    });
    // No record beside the file: the state is the one place the seal is kept.
    expect(existsSync(`${path}.json`)).toBe(false);
  });

  it('a damaged snapshot is never trusted: rebuilt by a full refresh, with a note', async () => {
    const configDir = tempConfigDir();
    const env = envWith(configDir);
    const file = write('damage.csv', csv([['ada@example.com', 'London']]));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const { key, path } = await snapshotOf(env);
    expect(path).toContain(`${configDir}/sync/`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // One value changed in place, far from the end (the export's own check reads only the last 64 KiB).
    const text = readFileSync(path, 'utf8');
    expect(text.indexOf('"City":"London"')).toBeLessThan(text.length - 100_000);
    writeFileSync(path, text.replace('"City":"London"', '"City":"Paris!"'));
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(res.stderr).toMatch(
      /note: the snapshot .* is damaged \(its SHA-256 is not the one recorded when it was written\): rebuilding it from a full refresh/,
    );
    expect(res.exitCode).toBe(0);
    expect(planLines(res.stdout).at(-1)).toMatchObject({ unchanged: 1 });

    // Cut short, or its state reset: rebuilt too, never refused.
    writeFileSync(path, readFileSync(path).subarray(0, 5000));
    const cut = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(cut.stderr).toMatch(
      /note: the snapshot .* is damaged \(it ends at byte \d+, before the \d+ bytes its state committed\): rebuilding/,
    );
    expect(cut.exitCode).toBe(0);
    expect((await cnvInProcess(['export', 'state', 'reset', key, '--yes'], { env })).exitCode).toBe(0);
    const reset = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
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
    expect((await cnvInProcess(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const env = envWith();
    const synced = csv([
      ['seal-label@example.com', 'London'],
      ['seal-row@example.com', 'London'],
    ]);
    expect((await cnvInProcess(['contacts', 'sync', '--file', write('seal-0.csv', synced)], { env })).exitCode).toBe(0);
    const { path, stateFile } = await snapshotOf(env);
    const sync = async (name: string, rows: Array<[string, string]>) => {
      const report = reportPath();
      const res = await cnvInProcess(
        ['contacts', 'sync', '--file', write(name, csv(rows)), '--report', report, '--json'],
        { env },
      );
      expect(res.exitCode, res.stderr).toBe(0);
      return { res, statuses: readReport(report).map((r) => r.status) };
    };

    // The labels part: "city" and "lastName" swap labels, so a trusted map would read city as "Lovelace".
    const saved = readState(stateFile);
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
    const lines = readFileSync(path, 'utf8').split('\n');
    const edited = lines.map((l) => (l.includes('"seal-row@example.com"') ? l.replace('"London"', '"Rome!!"') : l));
    expect(edited).not.toEqual(lines);
    writeFileSync(path, edited.join('\n'));
    const row = await sync('seal-2.csv', [['seal-row@example.com', 'Rome!!']]);
    expect(row.res.stderr).toMatch(/note: the snapshot .* is damaged .*: rebuilding it from a full refresh/);
    expect(JSON.parse(row.res.stdout).sync).toMatchObject({ update: 1, unchanged: 0, snapshot: { full: true } });
    expect(row.statuses).toEqual(['updated']);
    expect(await city('seal-row@example.com')).toBe('Rome!!');
  });

  it('a snapshot of an earlier cnv (its seal in a record beside the file, none in its state) is refreshed in full, with a note; one cut before its first page starts again without one', async () => {
    const env = envWith();
    const file = write('earlier.csv', csv([['ada@example.com', 'London']]));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const { path, stateFile } = await snapshotOf(env);
    const saved = readState(stateFile);
    delete saved.state.current.seal;
    writeFileSync(stateFile, JSON.stringify(saved));
    writeFileSync(`${path}.json`, JSON.stringify({ version: 3, key: 'k', bytes: 0 }));
    const old = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
    expect(old.stderr).toMatch(
      /note: the snapshot .* has no seal of its rows and labels: rebuilding it from a full refresh/,
    );
    expect(old.exitCode, old.stderr).toBe(0);
    expect(planLines(old.stdout).at(-1)).toMatchObject({ unchanged: 1 });

    // As a first refresh killed before its first page leaves it: the state names the file at 0 bytes, no seal.
    const cut = readState(stateFile);
    delete cut.state.current.seal;
    cut.state.current.output.bytes = 0;
    cut.state.current.output.tail = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    cut.state.current.cursor = null;
    writeFileSync(stateFile, JSON.stringify(cut));
    const summary = `${reportPath()}.json`;
    const again = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--summary-json', summary], {
      env,
    });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/note:/);
    expect(JSON.parse(readFileSync(summary, 'utf8')).sync.snapshot).toMatchObject({ full: true });
    expect(planLines(again.stdout).at(-1)).toMatchObject({ unchanged: 1 });
  });

  it('a FIFO or a symlink where the snapshot belongs is refused at once (exit 8, naming it), never opened or written through', async () => {
    const env = envWith();
    const file = write('fifo.csv', csv([['fifo@example.com', 'Here']]));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const { path } = await snapshotOf(env);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    const fifo = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(fifo.exitCode).toBe(8);
    expect(fifo.stderr).toContain(path);
    rmSync(path);
    // A symlink there is never followed (it could point at any file of the user's).
    const elsewhere = write('elsewhere.ndjson', 'not mine\n');
    symlinkSync(elsewhere, path);
    const link = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(link.exitCode).toBe(8);
    expect(link.stderr).toMatch(/is a symbolic link, not a regular file: remove it/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not mine\n');
  });

  it('a contact deleted in the account is not seen by an incremental refresh (documented); --full-refresh sees it and the row creates it again', async () => {
    const env = envWith();
    const file = write('deleted.csv', csv([['deleted@example.com', 'Gone']]));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const plan = ['contacts', 'sync', '--file', file, '--plan', '--exit-code'];
    expect((await cnvInProcess(plan, { env })).exitCode).toBe(0);
    const [contact] = (await fx.admin('GET', '/_emulator/state/contacts?email=deleted@example.com')) as Array<{
      id: string;
    }>;
    await fx.admin('POST', `/_emulator/contacts/${contact.id}/delete`, {});
    // The export never lists a removed contact: the snapshot still holds it.
    expect((await cnvInProcess(plan, { env })).exitCode).toBe(0);
    const full = await cnvInProcess(['contacts', 'sync', '--file', file, '--full-refresh', '--exit-code'], { env });
    expect(full.exitCode).toBe(9);
    expect(full.stderr).toMatch(/sync: 1 to create, 0 to update, 0 unchanged/);
    expect(await city('deleted@example.com')).toBe('Gone');
  });
});
