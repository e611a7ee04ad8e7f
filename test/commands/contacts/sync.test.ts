import fs, { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FIXTURE_CONTACTS } from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { csv, EXPORT, people, planLines, syncTools, UPSERT } from '../../helpers/sync-runs.js';

// contacts sync in-process against the emulator: only what differs is sent, the plan says what
// would be (its forms: a table on a terminal, NDJSON with -q per line), and what the account holds
// in the end is what the file says, across drift, duplicates and labels two fields share; the
// usage errors. The refresh's own cases are in sync-refresh.test.ts; kills, the lock and a closed
// pipe are tried through the binary (test/e2e/sync.test.ts).

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-sync-');
const { count, envWith, city } = syncTools(fx, cnvInProcess);

function file(name: string, text: string): string {
  const path = join(fx.configDir, name);
  writeFileSync(path, text);
  return path;
}

describe('contacts sync --plan', () => {
  it('on a terminal: the counts, then a table, one line per changed value ("update?" when sent because unsure)', async () => {
    const path = file(
      'plan.csv',
      `email,city,companyFields.employees\n${FIXTURE_CONTACTS.ada.email},Paris,\n${FIXTURE_CONTACTS.grace.email},,12\nbrand.new@example.com,Rome,\n`,
    );
    const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 120,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'Plan: 1 to create, 2 to update (1 of them because cnv cannot be sure they match: 1 company fields), 0 unchanged, 0 invalid.',
    );
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^line +action +contact +field +old +new$/);
    expect(lines[3]).toMatch(/^2 +update +ada@example\.com +fields\.city +London +Paris$/);
    expect(lines[4]).toMatch(/^3 +update\? +grace@example\.com +\(companyFields are not in the contacts export\)/);
    expect(lines[5]).toMatch(/^4 +create +brand\.new@example\.com +email +\(unset\) +brand\.new@example\.com$/);
    expect(lines[6]).toMatch(/^ +fields\.city +\(unset\) +Rome$/);
    expect(lines).toHaveLength(7);
  });

  it('-q applies to each NDJSON line', async () => {
    const path = file('q.csv', `email,city\n${FIXTURE_CONTACTS.ada.email},Lisbon\n`);
    const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan', '-q', 'changes[0].new || update'], {
      env: fx.env,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toBe('Lisbon\n1\n');
  });

  it('refuses what it cannot do: no --file, a report or summary on the stdout that holds the plan (exit 2)', async () => {
    const path = file('x.csv', 'email\na@example.com\n');
    const cases: Array<[string[], RegExp]> = [
      [['contacts', 'sync', '--plan'], /--file: required/],
      [['contacts', 'sync', '--file', path, '--plan', '--report', '-'], /--report -: not with --plan/],
      [['contacts', 'sync', '--file', path, '--plan', '--summary-json', '-'], /--summary-json -: not with --plan/],
    ];
    for (const [args, message] of cases) {
      const res = await cnvInProcess(args, { env: fx.env });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(message);
    }
  });
});

describe('contacts sync: how often the file is opened', () => {
  it('a regular file twice (checked whole, then read for its rows), whether a NUMBER column is scanned or not; stdin (read once) decides its numbers as they come', async () => {
    const opens = vi.spyOn(fs, 'open');
    try {
      for (const [name, text] of [
        ['opens-number.csv', `email,score\n${FIXTURE_CONTACTS.ada.email},1.5\nopens.new@example.com,2\n`],
        ['opens-text.csv', `email,city\n${FIXTURE_CONTACTS.ada.email},Paris\n`],
      ]) {
        const path = file(name, text);
        opens.mockClear();
        const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan'], { env: fx.env });
        expect(res.exitCode, res.stderr).toBe(0);
        expect(opens.mock.calls.filter(([p]) => p === path).length, name).toBe(2);
      }
      opens.mockClear();
      const piped = await cnvInProcess(['contacts', 'sync', '--file', '-', '--plan'], {
        env: fx.env,
        input: `email,score\n${FIXTURE_CONTACTS.ada.email},1.5\n`,
      });
      expect(piped.exitCode, piped.stderr).toBe(0);
      expect(JSON.parse(piped.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'summary', update: 1 });
    } finally {
      opens.mockRestore();
    }
  });
});

describe('contacts sync: what is sent', () => {
  it('sends only the rows that differ; --plan shows them first and sends nothing; a second run fetches only what changed', async () => {
    const rows = people('only', 40);
    expect(
      (await cnvInProcess(['contacts', 'upsert', '--file', write('seed.csv', csv(rows))], { env: fx.env })).exitCode,
    ).toBe(0);
    const edited = rows.map(([e, c], i): [string, string] => [e, i % 10 === 3 ? `Moved ${i}` : c]);
    const file = write('edited.csv', csv([...edited, ['only-new@example.com', 'Oslo'], ['not-an-email', 'Nowhere']]));
    const env = envWith();
    await fx.resetStats();

    const plan = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
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
    const sent = await cnvInProcess(['contacts', 'sync', '--file', file, '--report', report, '--json'], { env });
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
    const again = await cnvInProcess(
      ['contacts', 'sync', '--file', file, '--plan', '--summary-json', `${report}.json`],
      {
        env,
      },
    );
    expect(again.exitCode).toBe(6);
    expect(planLines(again.stdout)).toEqual([
      expect.objectContaining({ type: 'summary', create: 0, update: 0, unchanged: 41, invalid: 1 }),
    ]);
    expect(JSON.parse(fs.readFileSync(`${report}.json`, 'utf8')).sync.snapshot).toMatchObject({
      full: false,
      fetchedRows: 5,
      pages: 1,
    });
    expect(await count(EXPORT)).toBe(1);
  });

  it('--exit-code: 9 while the account differs, 0 once in sync', async () => {
    const env = envWith();
    const file = write('exit.csv', csv(people('exit', 3)));
    const first = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--quiet'], { env });
    expect(first.exitCode).toBe(9);
    expect(first.stderr).toBe('');
    expect((await cnvInProcess(['contacts', 'sync', '--file', file, '--exit-code'], { env })).exitCode).toBe(9);
    const inSync = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan', '--exit-code'], { env });
    expect(inSync.exitCode).toBe(0);
    expect(planLines(inSync.stdout)).toEqual([
      expect.objectContaining({ type: 'summary', create: 0, update: 0, unchanged: 3 }),
    ]);
  });

  it('drift: a value changed in the account after the last sync is seen by the refresh, and the same file sets it back', async () => {
    const env = envWith();
    const file = write('drift.csv', csv(people('drift', 5)));
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const changed = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'drift-2@example.com', '--field', 'city=Changed in the dashboard'],
      { env: fx.env },
    );
    expect(changed.exitCode).toBe(0);
    const plan = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(planLines(plan.stdout).filter((l) => l.type === 'change')).toEqual([
      expect.objectContaining({
        action: 'update',
        contact: 'drift-2@example.com',
        changes: [{ field: 'fields.city', old: 'Changed in the dashboard', new: 'City 2' }],
      }),
    ]);
    await fx.resetStats();
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(1);
    expect(await city('drift-2@example.com')).toBe('City 2');
  });

  it('a file naming one contact twice applies its rows in order: once a row is sent, the later rows of that contact are sent too', async () => {
    const env = envWith();
    const seed = csv([
      ['dup-a@example.com', 'B'],
      ['dup-c@example.com', 'X'],
    ]);
    expect(
      (await cnvInProcess(['contacts', 'upsert', '--file', write('dup-seed.csv', seed)], { env: fx.env })).exitCode,
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
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--report', report], { env });
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
    expect((await cnvInProcess(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const same = write(
      'digits.csv',
      'email,score,vip\ndigits@example.com,9007199254740993,\ndecimal@example.com,1.50,yes\n',
    );
    expect(planLines((await cnvInProcess(['contacts', 'sync', '--file', same, '--plan'], { env })).stdout)).toEqual([
      expect.objectContaining({ type: 'summary', unchanged: 2, update: 0 }),
    ]);
    const off = write('digits-off.csv', 'email,score\ndigits@example.com,9007199254740992\n');
    const plan = await cnvInProcess(['contacts', 'sync', '--file', off, '--plan'], { env });
    expect(plan.stdout).toContain('"changes":[{"field":"fields.score","old":9007199254740993,"new":9007199254740992}]');
  });

  it("cnv's own CSV export, synced back as it is, changes nothing and sends nothing", async () => {
    const env = envWith();
    const exported = `${write('x', '')}.csv`;
    expect(
      (await cnvInProcess(['export', 'contacts', '--no-state', '--out', exported], { env: fx.env })).exitCode,
    ).toBe(0);
    await fx.resetStats();
    const res = await cnvInProcess(['contacts', 'sync', '--file', exported, '--plan', '--exit-code'], { env });
    expect(res.exitCode).toBe(0);
    const summary = planLines(res.stdout).at(-1)!;
    expect(summary).toMatchObject({ create: 0, update: 0, invalid: 0 });
    expect(summary.unchanged).toBeGreaterThan(2000);
    expect(await count(UPSERT)).toBe(0);
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
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--dry-run', '--exit-code'], { env });
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

  it('an account without the contacts export: exit 4, and the hint names contacts upsert --file', async () => {
    const env = envWith(undefined, { CNV_API_KEY: fx.emulator.keys.basic });
    const res = await cnvInProcess(
      ['contacts', 'sync', '--file', write('gated.csv', csv([['gated@example.com', 'Oslo']])), '--plan'],
      { env },
    );
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(
      /error: export_not_enabled: contacts sync reads the account through the contacts export/,
    );
    expect(res.stderr).toMatch(/hint: send every row with `cnv contacts upsert --file FILE` instead/);
  });
});

describe('contacts sync: rows that reach one contact', () => {
  const id = async (args: string[]) =>
    (await cnvInProcess(['contacts', 'upsert', ...args, '-q', 'cnvContactId'], { env: fx.env })).stdout.trim();
  const cities = async (email: string) =>
    Object.fromEntries(
      (
        (await fx.admin('GET', `/_emulator/state/contacts?email=${email}`)) as Array<{
          id: string;
          fields: { city: string };
        }>
      ).map((c) => [c.id, c.fields.city]),
    );

  it('an earlier row that changes which contact an email finds: the later rows by that email are sent, and the account ends as upsert --file leaves it', async () => {
    // Two contacts share twin-a: older (city A), newer (city B). Another, moving-b, will be moved onto twin-b (city B).
    const older = await id(['--email', 'twin-a@example.com', '--field', 'city=A']);
    const newer = await id(['--email', 'twin-a-other@example.com', '--field', 'city=B']);
    const moved = await cnvInProcess(['contacts', 'upsert', '--contact-id', newer, '--email', 'twin-a@example.com'], {
      env: fx.env,
    });
    expect(moved.exitCode).toBe(0);
    await id(['--email', 'twin-b@example.com', '--field', 'city=B']);
    const moving = await id(['--email', 'moving-b@example.com', '--field', 'city=A']);
    // Row 2 makes the older twin-a the most recently updated: row 3 then updates it, not the newer one.
    // Row 4 gives moving-b the address twin-b: row 5 then updates it.
    const file = write(
      'twins.csv',
      `cnvContactId,email,city\n${older},,C\n,twin-a@example.com,B\n${moving},twin-b@example.com,\n,twin-b@example.com,B\n`,
    );
    const report = reportPath();
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--report', report], { env: envWith() });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readReport(report).map((r) => r.status)).toEqual(['updated', 'updated', 'updated', 'updated']);
    expect(readReport(report)[1].message).toMatch(/cannot be sure.*an earlier row of the file/);
    expect(await cities('twin-a@example.com')).toEqual({ [older]: 'B', [newer]: 'B' });
    expect((await cities('twin-b@example.com'))[moving]).toBe('B');
  });

  it('rows that reach one contact by different identifiers are sent in file order, even concurrently', async () => {
    const older = await id(['--email', 'order-twin@example.com', '--field', 'city=A']);
    const newer = await id(['--email', 'order-other@example.com', '--field', 'city=B']);
    const moved = await cnvInProcess(
      ['contacts', 'upsert', '--contact-id', newer, '--email', 'order-twin@example.com'],
      {
        env: fx.env,
      },
    );
    expect(moved.exitCode).toBe(0);
    // Rows 2 and 3 change the older twin by its id; row 4, by email, then reaches it too (the most
    // recently updated): it must not overtake them, though it names the contact otherwise.
    const file = write('order.csv', `cnvContactId,email,city\n${older},,C\n${older},,D\n,order-twin@example.com,B\n`);
    const res = await cnvInProcess(['contacts', 'sync', '--file', file, '--concurrency', '8'], { env: envWith() });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(await cities('order-twin@example.com')).toEqual({ [older]: 'B', [newer]: 'B' });
  });
});

describe('contacts sync: labels two fields share', () => {
  const createField = async (key: string, label: string) => {
    const create = ['fields', 'create', '--object-type', 'CONTACT', '--data-type', 'STRING'];
    expect((await cnvInProcess([...create, '--label', label, '--key', key], { env: fx.env })).exitCode).toBe(0);
  };

  it('a field whose label is how the export spells a shared label ("Rank (rank2)"): its rows are sent, as unsure', async () => {
    for (const [key, label] of [
      ['rank1', 'Rank'],
      ['rank2', 'Rank'],
      ['rank3', 'Rank (rank2)'],
    ])
      await createField(key, label);
    const seed = write(
      'rank-seed.ndjson',
      '{"email":"rank@example.com","fields":{"rank1":"gold","rank2":"silver","rank3":"bronze"}}\n',
    );
    expect((await cnvInProcess(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    // The export shows rank2 under "Rank (rank2)": that is not rank3's value.
    const file = write('rank.csv', 'email,fields.rank3\nrank@example.com,silver\n');
    const env = envWith();
    const plan = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan'], { env });
    expect(planLines(plan.stdout).at(-1)).toMatchObject({
      update: 1,
      unchanged: 0,
      unsureReasons: { 'shared label': 1 },
    });
    expect((await cnvInProcess(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(0);
    const got = await cnvInProcess(['contacts', 'get', '--email', 'rank@example.com', '-q', 'fields.rank3'], {
      env: fx.env,
    });
    expect(got.stdout.trim()).toBe('silver');
  });

  it('a label two fields share: rows with either field are sent, counted as unsure', async () => {
    for (const key of ['tier1', 'tier2']) await createField(key, 'Tier');
    const seed = write('tier-seed.ndjson', '{"email":"tier@example.com","fields":{"tier1":"gold","tier2":"silver"}}\n');
    expect((await cnvInProcess(['contacts', 'upsert', '--file', seed], { env: fx.env })).exitCode).toBe(0);
    const file = write('tier.csv', 'email,fields.tier1\ntier@example.com,gold\n');
    const plan = await cnvInProcess(['contacts', 'sync', '--file', file, '--plan'], { env: envWith() });
    const [change, summary] = planLines(plan.stdout);
    expect(change).toMatchObject({
      action: 'update',
      unsure: 'the export shows fields tier1 and tier2 under one label, "Tier"',
    });
    expect(summary).toMatchObject({ update: 1, unsure: 1, unsureReasons: { 'shared label': 1 } });
  });
});
