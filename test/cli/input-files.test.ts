import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Input files as spreadsheets and other tools write them (in-process; the MaxListeners check
// needs a real process and is in test/e2e/smoke.test.ts).

const { write, reportPath, readReport } = batchFiles('cnv-inputs-');
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/inputs/${name}`, import.meta.url));
const AUDIENCE = 'c1000000-0000-4000-8000-000000000003';

const fx = useEmulator({}, { faults: true, stats: true });

const contactsByEmail = async (email: string) =>
  (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<Record<string, any>>;
const upserts = async () => ((await fx.stats()).byRoute['POST /v2/contacts'] as number | undefined) ?? 0;

describe('encodings', () => {
  it('windows-1252 without --encoding: exit 2 naming the line and the encoding, nothing sent; with it, values arrive exact', async () => {
    const text = readFileSync(fixture('excel-windows-1252.csv'), 'latin1')
      .replace('email,name,city', 'email,fields.firstName,fields.city')
      .replace(/@example/g, '.cp1252@example');
    const path = write('cp1252.csv', '');
    writeFileSync(path, Buffer.from(text, 'latin1'));
    const refused = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/cp1252\.csv: not UTF-8 at line 2 \(byte 0xeb\)/);
    expect(refused.stderr).toMatch(/hint: .*try --encoding windows-1252/);
    expect(await upserts()).toBe(0);

    const read = await cnvInProcess(['contacts', 'upsert', '--file', path, '--encoding', 'windows-1252'], {
      env: fx.env,
    });
    expect(read.exitCode).toBe(0);
    const [a] = await contactsByEmail('a.cp1252@example.com');
    const [b] = await contactsByEmail('b.cp1252@example.com');
    expect(a.fields).toMatchObject({ firstName: 'Zoë', city: 'München' });
    expect(b.fields).toMatchObject({ firstName: 'Renée', city: 'Café €' });
  });

  it('UTF-16LE with a BOM (Excel "Unicode Text"): the hint says --delimiter tab; with it, values arrive exact', async () => {
    const refused = await cnvInProcess(
      ['audience', 'add', AUDIENCE, '--batch', fixture('excel-unicode-text.txt'), '--dry-run'],
      { env: fx.env },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/the header is one column, "email\\tname\\tcity"/);
    expect(refused.stderr).toMatch(/hint: .*try --delimiter tab/);
    expect(refused.stderr).not.toMatch(/\u0000/);
    const text = readFileSync(fixture('excel-unicode-text.txt'), 'utf16le')
      .replace('email\tname\tcity', 'email\tfields.firstName\tfields.city')
      .replace(/@example/g, '.utf16@example');
    const path = write('utf16.tsv', '');
    writeFileSync(path, Buffer.from(text, 'utf16le'));
    const read = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(read.exitCode).toBe(0);
    expect((await contactsByEmail('b.utf16@example.com'))[0].fields).toMatchObject({ firstName: '李', city: 'Tōkyō' });
  });

  it('invalid UTF-8 in an NDJSON row is never sent as U+FFFD', async () => {
    const path = write('bad.ndjson', '');
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('{"email":"m\\u00fcnchen.ok@example.com","fields":{"city":"'),
        Buffer.from('M\xfcnchen', 'latin1'),
        Buffer.from('"}}\n'),
      ]),
    );
    const res = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/not UTF-8 at line 1/);
    expect(await upserts()).toBe(0);
  });
});

describe('spreadsheet layouts', () => {
  it('CR-only line ends: the last value arrives without a line break, a quoted last value reads', async () => {
    const path = write('mac.csv', 'email,fields.city\rmac.one@example.com,Bergen\rmac.two@example.com,"Oslo, Norway"');
    const res = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect((await contactsByEmail('mac.two@example.com'))[0].fields.city).toBe('Oslo, Norway');
    const plain = write('mac2.csv', 'email,fields.city\rmac.three@example.com,Oslo\r');
    expect((await cnvInProcess(['contacts', 'upsert', '--file', plain], { env: fx.env })).exitCode).toBe(0);
    expect((await contactsByEmail('mac.three@example.com'))[0].fields.city).toBe('Oslo');
  });

  it('empty-cell rows and empty unnamed trailing columns are skipped, not invalid', async () => {
    const report = reportPath();
    const res = await cnvInProcess(
      ['audience', 'add', AUDIENCE, '--batch', fixture('empty-cells.csv'), '--dry-run', '--report', report],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(readReport(report).map((r) => [r.line, r.status])).toEqual([
      ['2', 'valid'],
      ['5', 'valid'],
    ]);
  });

  it('a semicolon CSV gets the --delimiter hint', async () => {
    const res = await cnvInProcess(
      ['audience', 'add', AUDIENCE, '--batch', fixture('excel-semicolon.csv'), '--dry-run'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/hint: the header has one column holding ";": try --delimiter ';'/);
  });
});

describe('identifiers as users spell them', () => {
  it('alias headers and capitalised JSON keys are read; a header with none names the accepted spellings', async () => {
    for (const name of ['alias-headers.csv', 'capitalised-keys.ndjson', 'capitalised-keys.json']) {
      const report = reportPath();
      const res = await cnvInProcess(
        ['audience', 'add', AUDIENCE, '--batch', fixture(name), '--dry-run', '--report', report],
        { env: fx.env },
      );
      expect(res.exitCode, `${name}: ${res.stderr}`).toBe(0);
      expect(readReport(report).every((r) => r.status === 'valid')).toBe(true);
    }
    const none = await cnvInProcess(
      ['audience', 'add', AUDIENCE, '--batch', write('none.csv', 'Mail,Name\na@example.com,Ann\n'), '--dry-run'],
      { env: fx.env },
    );
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(
      'the header names none of the columns that identify a row: cnvContactId (or Contact ID, id), userId (or User ID) or email (or Email Address, E-mail); any case (it has: "Mail", "Name")',
    );
  });
});

describe('hostile input', () => {
  it('a row nested 20,000 levels deep is invalid (line named) in --dry-run and in the live run; the rest is sent, exit 6', async () => {
    const [{ email }] = (await fx.admin('GET', '/_emulator/state/contacts')) as Array<{ email: string }>;
    const deep = JSON.stringify({ event: 'deep.test', email, clientEventId: 'deep-2' }).replace(
      /}$/,
      `,"data":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    );
    const rows = [
      JSON.stringify({ event: 'deep.test', email, clientEventId: 'deep-1' }),
      deep,
      JSON.stringify({ event: 'deep.test', email, clientEventId: 'deep-3' }),
    ];
    const path = write('deep.ndjson', rows.join('\n') + '\n');
    for (const dry of [true, false]) {
      const report = reportPath();
      const res = await cnvInProcess(
        ['events', 'track', '--file', path, '--report', report, ...(dry ? ['--dry-run'] : [])],
        { env: fx.env },
      );
      expect(res.exitCode, res.stderr).toBe(6);
      expect(readReport(report).map((r) => [r.line, r.status, r.message])).toEqual([
        ['1', dry ? 'valid' : 'tracked', ''],
        ['2', 'invalid', 'nested deeper than 100 levels'],
        ['3', dry ? 'valid' : 'tracked', ''],
      ]);
    }
    expect((await fx.stats()).byRoute['POST /v2/events']).toBe(2);
  });

  it('a row whose values hold terminal escapes is listed on stderr with them escaped; the report keeps them exact', async () => {
    const evil = 'x\u001b]0;owned\u0007@\u009bexample';
    const report = reportPath();
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--file', write('evil.csv', `email\n"${evil}"\n`), '--dry-run'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(6);
    expect(res.stderr).toContain(
      'line 2: invalid: invalid_email: email: expected an email address, got "x\\u001b]0;owned\\u0007@\\u009bexample" (x\\x1b]0;owned\\x07@\\u009bexample)',
    );
    expect(res.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    await cnvInProcess(
      ['contacts', 'upsert', '--file', write('evil2.csv', `email\n"${evil}"\n`), '--dry-run', '--report', report],
      { env: fx.env },
    );
    expect(readReport(report)[0].identifier).toBe(evil);
  });

  it('a binary file is refused without its bytes reaching the terminal', async () => {
    const path = write('binary.csv', '');
    writeFileSync(path, Buffer.from('email\n\u001b]0;owned\u0007\u0000\u0001\u0002\n', 'latin1'));
    const res = await cnvInProcess(['contacts', 'upsert', '--file', path], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/a NUL character at line 2/);
    expect(res.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });
});

describe('exports that loaders read without guessing', () => {
  it('--null-as \\N writes null as \\N and keeps "" empty; the default is unchanged; NDJSON refuses it', async () => {
    const args = ['export', 'contacts', '--no-state', '-o', 'csv', '--limit', '50', '--max-pages', '1'];
    const marked = await cnvInProcess([...args, '--null-as', '\\N'], { env: fx.env });
    const plain = await cnvInProcess(args, { env: fx.env });
    expect([marked.exitCode, plain.exitCode]).toEqual([0, 0]);
    const withNull = parse(marked.stdout, { columns: true }) as Array<Record<string, string>>;
    const without = parse(plain.stdout, { columns: true }) as Array<Record<string, string>>;
    const state = (await fx.admin('GET', '/_emulator/state/contacts')) as Array<Record<string, unknown>>;
    const byId = new Map(state.map((c) => [c.id, c]));
    let nulls = 0;
    withNull.forEach((row, i) => {
      const contact = byId.get(row.id)!;
      for (const column of ['sfdcLeadId', 'sfdcContactId', 'sfdcAccountId']) {
        if (contact[column] === null) nulls++;
        expect(row[column]).toBe(contact[column] === null ? '\\N' : String(contact[column]));
        expect(without[i][column]).toBe(contact[column] === null ? '' : String(contact[column]));
      }
    });
    expect(nulls).toBeGreaterThan(0);
    const ndjson = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson', '--null-as', '\\N'], {
      env: fx.env,
    });
    expect([ndjson.exitCode, ndjson.stderr]).toEqual([
      2,
      expect.stringContaining('--null-as applies to CSV output only'),
    ]);
  });

  it('a CSV file keeps its --null-as and --excel-safe: a resumed run with others is refused (exit 2), the file untouched', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-null-as-')), 'contacts.csv');
    const args = ['export', 'contacts', '-o', 'csv', '--out', out, '--limit', '20', '--max-pages', '1'];
    const first = await cnvInProcess([...args, '--null-as', '\\N'], { env: fx.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const written = readFileSync(out);
    const plain = await cnvInProcess(args, { env: fx.env });
    expect([plain.exitCode, plain.stderr]).toEqual([
      2,
      expect.stringContaining(
        `--null-as: ${out} was written with --null-as '\\N'; it cannot continue without --null-as`,
      ),
    ]);
    const guarded = await cnvInProcess([...args, '--null-as', '\\N', '--excel-safe'], { env: fx.env });
    expect([guarded.exitCode, guarded.stderr]).toEqual([2, expect.stringContaining('--excel-safe: ')]);
    expect(readFileSync(out).equals(written)).toBe(true);
    const same = await cnvInProcess([...args, '--null-as', '\\N'], { env: fx.env });
    expect(same.exitCode, same.stderr).toBe(0);
    expect(readFileSync(out).length).toBeGreaterThan(written.length);
    // --full starts the file again, so any cell rules may be chosen.
    const full = await cnvInProcess([...args, '--full'], { env: fx.env });
    expect(full.exitCode, full.stderr).toBe(0);
  });
});
