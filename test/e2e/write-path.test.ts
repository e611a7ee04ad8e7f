import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { stateFileStem } from '../../src/exporter/state-key.js';
import { MAX_WRITE_BYTES } from '../../src/limits/limits.js';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { hostileServer } from '../helpers/hostile-server.js';

// Issue 29: nothing guessed on the write path. Each case runs the built binary against the
// emulator, as a user meets it.

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-write-path-');

const run = (args: string[], env: Record<string, string> = {}) =>
  cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir(), ...env } });
const contact = async (email: string) =>
  (
    (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<
      Record<string, any>
    >
  )[0];
const upserts = async () => ((await fx.stats()).byRoute['POST /v2/contacts'] as number | undefined) ?? 0;

describe('a key named twice in one JSON object', () => {
  it('is a malformed_row naming the key (top level and inside fields), never sent; the other rows are', async () => {
    const path = write(
      'twice.ndjson',
      [
        '{"email":"twice.a@example.com","email":"twice.b@example.com"}',
        '{"email":"twice.c@example.com","fields":{"city":"Oslo","city":"Bergen"}}',
        '{"email":"twice.d@example.com","fields":{"city":"Oslo"}}',
      ].join('\n'),
    );
    const report = reportPath();
    const res = await run(['contacts', 'upsert', '--file', path, '--report', report]);
    expect(res.exitCode, res.stderr).toBe(6);
    const rows = readReport(report);
    expect(rows.map((r) => [r.line, r.status, r.error, r.message])).toEqual([
      ['1', 'invalid', 'malformed_row', 'the key "email" appears twice in one object: keep one'],
      ['2', 'invalid', 'malformed_row', 'the key "fields.city" appears twice in one object: keep one'],
      ['3', 'created', '', ''],
    ]);
    expect(await upserts()).toBe(1);
    expect(await contact('twice.b@example.com')).toBeUndefined();
    expect(await contact('twice.c@example.com')).toBeUndefined();
  });

  it('in a CSV cell holding a JSON object, too', async () => {
    const path = write('twice.csv', 'email,fields\ntwice.e@example.com,"{""city"":""Oslo"",""city"":""Bergen""}"\n');
    const report = reportPath();
    const res = await run(['contacts', 'upsert', '--file', path, '--report', report]);
    expect(res.exitCode, res.stderr).toBe(6);
    expect(readReport(report)[0]).toMatchObject({
      status: 'invalid',
      error: 'malformed_row',
      message: '"fields": the key "city" appears twice in one object: keep one',
    });
    expect(await upserts()).toBe(0);
  });
});

describe('the key echoed back base64-encoded', () => {
  it("is masked on stderr, in --debug and in the report's message column: whole key and secret part", async () => {
    const KEY = 'sk_live_echo_Q2FuYXJ5U2VjcmV0VmFsdWUxMjM0NTY';
    const SECRET = KEY.slice('sk_live_echo_'.length);
    const echoes = [
      Buffer.from(KEY).toString('base64'),
      Buffer.from(SECRET).toString('base64url'),
      Buffer.from(`Basic ${KEY}:`).toString('base64'),
    ];
    const server = await hostileServer((req, res) => {
      const message = `key ${echoes.join(' / ')} refused`;
      const body = req.url?.endsWith('/contacts/batch')
        ? `{"data":{"results":[{"added":false,"error":"invalid_request","message":"${message}"}]}}`
        : `{"error":{"code":"invalid_field","message":"${message}"}}`;
      res.writeHead(req.url?.endsWith('/contacts/batch') ? 200 : 400, { 'content-type': 'application/json' }).end(body);
    });
    try {
      const env = { CNV_BASE_URL: server.url, CNV_API_KEY: KEY, CNV_RATE_SHARE: 'off' };
      const report = reportPath();
      const runs = [
        await run(['contacts', 'upsert', '--email', 'a@example.com', '--debug'], env),
        await run(
          [
            'audience',
            'add',
            'c1000000-0000-4000-8000-000000000002',
            '--batch',
            write('one.csv', 'email\na@example.com\n'),
            '--report',
            report,
            '--debug',
          ],
          env,
        ),
      ];
      const seen = [...runs.map((r) => r.stdout + r.stderr), readFileSync(report, 'utf8')];
      for (const text of seen) {
        expect(text).toMatch(/key \*\*\*\* \/ \*\*\*\* \/ [\w+/]*\*\*\*\*[\w+/=]* refused/);
        for (const echo of echoes) expect(text).not.toContain(echo.slice(8, 24));
      }
    } finally {
      await server.close();
    }
  });
});

describe('a cron export keeps its state when a profile is added', () => {
  const exportTo = (out: string, config: string, env: Record<string, string | undefined> = {}, flags: string[] = []) =>
    cnv(['export', 'contacts', '--out', out, ...flags], { env: { ...fx.env, CNV_CONFIG_DIR: config, ...env } });
  const setKey = (config: string, profile: string, key: string) =>
    cnv(['--profile', profile, 'config', 'set-key', '--base-url', fx.emulator.url], {
      env: { CNV_CONFIG_DIR: config },
      input: key,
    });
  const stateFiles = (config: string) => readdirSync(join(config, 'exports')).filter((f) => f.endsWith('.json'));
  const stateOf = (config: string, file: string) =>
    JSON.parse(readFileSync(join(config, 'exports', file), 'utf8')).state;

  it('the same account through CNV_API_KEY, then a new default profile, continues one state; another key never does', async () => {
    const config = tempConfigDir();
    const out = join(config, 'contacts.csv');
    const first = await exportTo(out, config);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain(`state "sk_live_demo@${new URL(fx.emulator.url).host}/contacts:${out}" saved`);
    // The first profile becomes the current one: the same cron line (CNV_API_KEY) goes on.
    expect((await setKey(config, 'work', fx.emulator.keys.full)).exitCode).toBe(0);
    const again = await exportTo(out, config);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/complete: nothing new since the last run/);
    // The profile's own key (no CNV_API_KEY): the same account, the same state.
    const byProfile = await exportTo(out, config, { CNV_API_KEY: undefined, CNV_BASE_URL: undefined });
    expect(byProfile.exitCode, byProfile.stderr).toBe(0);
    expect(byProfile.stderr).toMatch(/complete: nothing new since the last run/);
    expect(stateFiles(config)).toHaveLength(1);
    // Another key (another account): its own state, which did not write the file.
    const other = await exportTo(out, config, { CNV_API_KEY: fx.emulator.keys.limited });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('error: file_not_empty:');
    expect(other.stderr).toContain('of the account sk_live_demo@');
  });

  it('a state of an earlier version (no account) is refused naming it and how to start over; one named after the profile is never looked for', async () => {
    const config = tempConfigDir();
    const out = join(config, 'contacts.ndjson');
    expect((await exportTo(out, config)).exitCode).toBe(0);
    // As an earlier version wrote it: no account.
    const [file] = stateFiles(config);
    const path = join(config, 'exports', file);
    const { account, ...state } = stateOf(config, file);
    expect(account).toBe(`sk_live_demo@${new URL(fx.emulator.url).host}`);
    writeFileSync(path, JSON.stringify({ state }));
    const refused = await exportTo(out, config);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `error: state_corrupt: the export state file ${path} cannot be used: it is not a state this version of cnv writes (account: `,
    );
    expect(refused.stderr).toMatch(
      /^hint: .*`cnv export state reset .*` removes it, or run the export with --full to start over and replace it$/m,
    );
    const full = await exportTo(out, config, {}, ['--full']);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(stateOf(config, file).account).toBe(account);

    // The key earlier versions gave it (the profile's name, "default"): no state under the account's key,
    // and the file it wrote is not continued on a guess.
    const legacyKey = `default@${new URL(fx.emulator.url).host}/contacts:${out}`;
    rmSync(path);
    writeFileSync(
      join(config, 'exports', `${stateFileStem(legacyKey)}.json`),
      JSON.stringify({ state: { ...state, key: legacyKey } }),
    );
    const owners = join(config, 'exports', 'files');
    for (const owner of readdirSync(owners).filter((f) => f.endsWith('.owner'))) rmSync(join(owners, owner));
    const fresh = await exportTo(out, config);
    expect(fresh.exitCode).toBe(2);
    expect(fresh.stderr).toContain(`error: file_not_empty: --out ${out} already holds`);
    expect(fresh.stderr).toContain('hint: choose a new file, or pass --full to replace its content');
  });
});

describe('the batch report is a plain CSV', () => {
  it('its first line is its header (any CSV reader with its defaults), values with # kept, every row naming the run; a resume reads it', async () => {
    const input = write('people.csv', 'email,fields.city\nplain.a@example.com,#1 Main St\nplain.b@example.com,Oslo\n');
    const report = reportPath();
    const res = await run(['contacts', 'upsert', '--file', input, '--report', report]);
    expect(res.exitCode, res.stderr).toBe(0);
    const text = readFileSync(report, 'utf8');
    expect(text.split('\n')[0]).toBe('line,identifier,status,cnvContactId,error,message,row,hash,job');
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.line, r.identifier, r.status])).toEqual([
      ['2', 'plain.a@example.com', 'created'],
      ['3', 'plain.b@example.com', 'created'],
    ]);
    expect(JSON.parse(rows[0].job)).toEqual({
      command: 'contacts upsert',
      target: null,
      input: basename(input),
      account: `sk_live_demo@${new URL(fx.emulator.url).host}`,
    });
    expect((await contact('plain.a@example.com')).fields.city).toBe('#1 Main St');
    // Resumed from it: nothing is sent again; another command's run refuses it by its job column.
    await fx.resetStats();
    const resumed = await run([
      'contacts',
      'upsert',
      '--file',
      input,
      '--report',
      report,
      '--resume-from-report',
      report,
    ]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(await upserts()).toBe(0);
    const other = await run([
      'audience',
      'add',
      'c1000000-0000-4000-8000-000000000003',
      '--batch',
      input,
      '--resume-from-report',
      report,
    ]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('error: report_mismatch: ');
  });

  it('a report written to stdout and saved resumes; one of an earlier version (#cnv-report first line) is refused, naming the way to start over', async () => {
    const input = write('people.csv', 'email\nstdout.a@example.com\nstdout.b@example.com\n');
    const saved = await run(['contacts', 'upsert', '--file', input, '--report', '-']);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const report = write('saved.csv', saved.stdout);
    await fx.resetStats();
    expect((await run(['contacts', 'upsert', '--file', input, '--resume-from-report', report])).exitCode).toBe(0);
    expect(await upserts()).toBe(0);
    // The form of an earlier version: the job on a first line of its own, then the header without `job`.
    const rows = (parse(saved.stdout, { columns: true }) as Array<Record<string, string>>).map((r) =>
      [r.line, r.identifier, r.status, r.cnvContactId, '', '', r.row, r.hash].join(','),
    );
    const job = {
      version: 3,
      command: 'contacts upsert',
      target: null,
      input,
      account: `${new URL(fx.emulator.url).host} sk_live_demo_****`,
    };
    const older = write(
      'older.csv',
      `#cnv-report ${JSON.stringify(job)}\nline,identifier,status,cnvContactId,error,message,row,hash\n${rows[0]}\n`,
    );
    const resumed = await run([
      'contacts',
      'upsert',
      '--file',
      input,
      '--resume-from-report',
      older,
      '--report',
      reportPath(),
    ]);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(
      `error: invalid_input: --resume-from-report ${older}: not a report of this version of cnv: its first line is not the header`,
    );
    expect(resumed.stderr).toContain(
      'hint: give the --report file of an earlier run of the same input, or run without --resume-from-report to send the whole file again',
    );
    expect(await upserts()).toBe(0);
  });
});

describe('sizes: what cnv writes in one row, it reads back however the server spells it', () => {
  it('the write cap counts UTF-8 bytes: a value of 6 Mi "é" (12 MiB) is refused before any request', async () => {
    const path = write(
      'wide.ndjson',
      `{"email":"wide@example.com","fields":{"city":"${'é'.repeat(6 * 1024 * 1024)}"}}\n`,
    );
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(`error: invalid_input: ${path} line 1: the line is larger than 10 MiB: not NDJSON?`);
    expect(await upserts()).toBe(0);
  });

  it('the largest value it writes, escaped as \\u0001 by the server (6 bytes each), is read back by an export', async () => {
    const value = '\u0001'.repeat(MAX_WRITE_BYTES - 64 * 1024);
    // cnv takes the row (a CSV cell holds the characters as they are)...
    const path = write('control.csv', `email,city\ncontrol@example.com,${value}\n`);
    const dry = await run(['contacts', 'upsert', '--file', path, '--dry-run', '--report', '-']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(',valid,');
    // ...and reads it back from a server that escapes every control character (as Python's json.dumps does).
    const row = `{"id":"c1","email":"control@example.com","fields":{"Note":"${'\\u0001'.repeat(value.length)}"}}`;
    expect(row.length).toBeGreaterThan(60 * 1024 * 1024 - 400_000);
    const server = await hostileServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"data":{"contacts":[${row}]},"pagination":{"nextCursor":null}}`),
    );
    try {
      const out = join(tempConfigDir(), 'c.ndjson');
      const res = await run(['export', 'contacts', '--out', out, '--no-state'], {
        CNV_BASE_URL: server.url,
        CNV_RATE_SHARE: 'off',
      });
      expect(res.exitCode, res.stderr).toBe(0);
      expect((JSON.parse(readFileSync(out, 'utf8')) as { fields: { Note: string } }).fields.Note).toBe(value);
    } finally {
      await server.close();
    }
  });
});

describe('a column that names a key and a field', () => {
  it('"Contact ID" beside a CONTACT field labelled "Contact ID" is refused as ambiguous, naming both readings and the --map of each', async () => {
    const created = await run([
      'fields',
      'create',
      '--label',
      'Contact ID',
      '--object-type',
      'contact',
      '--data-type',
      'number',
      '--key',
      'hubspotId',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const path = write('hubspot.csv', 'Email,Contact ID\nhub.spot@example.com,51\n');
    const refused = await run(['contacts', 'upsert', '--file', path]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `error: unknown_column: ${path}: a column names more than one thing POST /v2/contacts takes: "Contact ID" (names both cnvContactId and fields.hubspotId (CONTACT field labelled "Contact ID"): say which with --map 'Contact ID=cnvContactId' or --map 'Contact ID=fields.hubspotId')`,
    );
    expect(await upserts()).toBe(0);
    const asField = await run(['contacts', 'upsert', '--file', path, '--map', 'Contact ID=fields.hubspotId']);
    expect(asField.exitCode, asField.stderr).toBe(0);
    expect((await contact('hub.spot@example.com')).fields).toEqual({ hubspotId: 51 });
    // Mapped to the id, it is one: "51" is no UUID, so the row is invalid, never sent as the field.
    const asId = await run(['contacts', 'upsert', '--file', path, '--map', 'Contact ID=cnvContactId']);
    expect(asId.exitCode).toBe(6);
    expect(asId.stderr).toMatch(/line 2: invalid: invalid_request: cnvContactId: expected a UUID/);
    // The key's own name is the key.
    const own = await run([
      'contacts',
      'upsert',
      '--file',
      write('own.csv', `email,cnvContactId\nhub.spot@example.com,${(await contact('hub.spot@example.com')).id}\n`),
    ]);
    expect(own.exitCode, own.stderr).toBe(0);
  });
});

describe('every field back from the export', () => {
  it('fields that share a label (Score; Café composed and decomposed) get a column each; the file imports back with every value, as it is and with --map', async () => {
    for (const [label, key, type] of [
      ['Score', 'score2', 'number'],
      ['Caf\u00e9', 'cafeComposed', 'string'],
      ['Cafe\u0301', 'cafeDecomposed', 'string'],
    ]) {
      const created = await run([
        'fields',
        'create',
        '--label',
        label,
        '--object-type',
        'contact',
        '--data-type',
        type,
        '--key',
        key,
      ]);
      expect(created.exitCode, created.stderr).toBe(0);
    }
    const email = 'shared.labels@example.com';
    const seeded = await run([
      'contacts',
      'upsert',
      '--email',
      email,
      '-F',
      'score=1',
      '-F',
      'score2=2',
      '-f',
      'cafeComposed=a',
      '-f',
      'cafeDecomposed=b',
    ]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const out = join(tempConfigDir(), 'contacts.csv');
    const exported = await run(['export', 'contacts', '--out', out, '--no-state']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    const [header, ...lines] = text.trimEnd().split('\r\n');
    const columns = header.split(',');
    for (const column of ['Score (score)', 'Score (score2)', 'Caf\u00e9 (cafeComposed)', 'Cafe\u0301 (cafeDecomposed)'])
      expect(columns).toContain(column);
    const mine = parse(text, { columns: true }).find((r: Record<string, string>) => r.email === email) as Record<
      string,
      string
    >;
    expect([
      mine['Score (score)'],
      mine['Score (score2)'],
      mine['Caf\u00e9 (cafeComposed)'],
      mine['Cafe\u0301 (cafeDecomposed)'],
      mine._extra,
    ]).toEqual(['1', '2', 'a', 'b', '']);

    // Edited and imported back as it is: every field is sent, the edit lands.
    const line = lines.find((l) => l.includes(email))!;
    const edited = write('edited.csv', `${header}\n${line.replace(',2,', ',22,')}\n`);
    const back = await run(['contacts', 'upsert', '--file', edited]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/Score \(score2\) +-> fields\.score2 /);
    expect((await contact(email)).fields).toMatchObject({
      score: 1,
      score2: 22,
      cafeComposed: 'a',
      cafeDecomposed: 'b',
    });
    // With a --map for one of them, the others still resolve by themselves.
    const mapped = await run([
      'contacts',
      'upsert',
      '--file',
      write('edited2.csv', `${header}\n${line.replace(',2,', ',23,')}\n`),
      '--map',
      'Score (score)=score',
    ]);
    expect(mapped.exitCode, mapped.stderr).toBe(0);
    expect((await contact(email)).fields).toMatchObject({
      score: 1,
      score2: 23,
      cafeComposed: 'a',
      cafeDecomposed: 'b',
    });
  });
});

describe('one number convention per file', () => {
  const score = async (email: string) => (await contact(email))?.fields.score;

  it('Google Sheets\' "1,234": refused before any request, naming the line and both readings; each flag reads its own', async () => {
    const path = write('sheets.csv', 'email,score\nsheets.a@example.com,"1,234"\nsheets.b@example.com,7\n');
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      `error: ambiguous_number: ${path} line 2: the NUMBER cell "1,234" reads as 1234 with a decimal point (the comma groups thousands) or as 1.234 with a decimal comma, and no other cell of the file tells which`,
    );
    expect(res.stderr).toContain('hint: --decimal-point reads it as 1234, --decimal-comma as 1.234');
    expect(await upserts()).toBe(0);
    expect((await run(['contacts', 'upsert', '--file', path, '--decimal-point'])).exitCode).toBe(0);
    expect(await score('sheets.a@example.com')).toBe(1234);
    expect((await run(['contacts', 'upsert', '--file', path, '--decimal-comma'])).exitCode).toBe(0);
    expect(await score('sheets.a@example.com')).toBe(1.234);
    const both = await run(['contacts', 'upsert', '--file', path, '--decimal-comma', '--decimal-point']);
    expect([both.exitCode, both.stderr]).toEqual([
      2,
      expect.stringContaining('error: conflicting_options: --decimal-comma and --decimal-point'),
    ]);
  });

  it('German Excel (sep=;): "1.234" then "1.234,5" on a later row: the file\'s own evidence, found before sending, reads both with a decimal comma', async () => {
    const path = write('excel-de.csv', 'sep=;\nemail;score\nde.a@example.com;1.234\nde.b@example.com;1.234,5\n');
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `note: ${path} writes NUMBER cells with a decimal comma (line 4: "1.234,5"), so "1.234" (line 3) is read as 1234; --decimal-point or --decimal-comma names the convention instead`,
    );
    expect([await score('de.a@example.com'), await score('de.b@example.com')]).toEqual([1234, 1234.5]);
  });

  it('a file that writes numbers both ways is refused before any request, naming a line of each', async () => {
    const path = write('mixed.csv', 'email,score\nmixed.a@example.com,1.5\nmixed.b@example.com,"3,5"\n');
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      `error: mixed_number_formats: ${path}: NUMBER cells are written two ways: line 2 "1.5" with a decimal point, line 3 "3,5" with a decimal comma; a file has one convention`,
    );
    expect(await upserts()).toBe(0);
  });

  it('stdin is read once: a cell of two readings is an invalid row naming both, unless a flag decides; records files too', async () => {
    const text = 'email,score\nstdin.a@example.com,"1,234"\nstdin.b@example.com,5\n';
    const report = reportPath();
    const res = await cnv(['contacts', 'upsert', '--file', '-', '--report', report], {
      env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
      input: text,
    });
    expect(res.exitCode).toBe(6);
    expect(readReport(report)[0]).toMatchObject({ status: 'invalid', error: 'invalid_field' });
    expect(readReport(report)[0].message).toContain(
      '"1,234" reads as 1234 with a decimal point (the comma groups thousands) or as 1.234 with a decimal comma; the input is read once',
    );
    expect(await score('stdin.b@example.com')).toBe(5);
    const flagged = await cnv(['contacts', 'upsert', '--file', '-', '--decimal-point'], {
      env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
      input: text,
    });
    expect(flagged.exitCode, flagged.stderr).toBe(0);
    expect(await score('stdin.a@example.com')).toBe(1234);
    const records = await run([
      'records',
      'upsert',
      'c0000000-0000-4000-8000-000000000001',
      '--file',
      write('subs.csv', 'clientDedupKey,seats\nsub-nc,"1,000"\n'),
    ]);
    expect(records.exitCode).toBe(2);
    expect(records.stderr).toContain(
      'the NUMBER cell "1,000" reads as 1000 with a decimal point (the comma groups thousands) or as 1 with a decimal comma',
    );
  });

  it('a flag value names every reading too', async () => {
    const res = await run(['contacts', 'upsert', '--email', 'flag.value@example.com', '--field', 'score=1,234']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      '"1,234" reads as 1234 with a decimal point (the comma groups thousands) or as 1.234 with a decimal comma: write 1234 or 1.234',
    );
  });
});

describe('blank cells of field columns', () => {
  it('are said once at run time, with the count and the columns, and in --summary-json', async () => {
    const path = write('blanks.csv', 'email,city,score\nblank.a@example.com,,\nblank.b@example.com,Oslo,\n');
    const summary = join(tempConfigDir(), 'summary.json');
    const res = await run(['contacts', 'upsert', '--file', path, '--summary-json', summary]);
    expect(res.exitCode, res.stderr).toBe(0);
    const notes = res.stderr.split('\n').filter((l) => l.includes('blank cell'));
    expect(notes).toEqual([
      'note: 3 blank cells of field columns ("city", "score") not sent: a blank cell leaves the field as it is on the server; to clear a field, send null for it (NDJSON)',
    ]);
    expect(JSON.parse(readFileSync(summary, 'utf8')).blankCells).toEqual({ cells: 3, columns: ['city', 'score'] });
    const records = await run([
      'records',
      'upsert',
      'c0000000-0000-4000-8000-000000000001',
      '--file',
      write('subs.csv', 'clientDedupKey,planName,seats\nsub-blank,,3\n'),
    ]);
    expect(records.exitCode, records.stderr).toBe(0);
    expect(records.stderr).toContain(
      'note: 1 blank cell of field columns ("planName") not sent: a blank cell leaves the field as it is on the server; --empty-cells null clears the field instead',
    );
  });
});
