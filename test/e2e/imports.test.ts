import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES as AU } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { execa } from 'execa';
import { BIN, cnv, tempConfigDir } from '../helpers/cli.js';
import { emulatorFixture, useEmulator } from '../helpers/emulator.js';

// Issue 21: every column of an import lands where it belongs, or the run says why; values
// reach the server unchanged. Everything here runs the built binary against the emulator.

const fx = useEmulator({}, { faults: true, stats: true });
const { dir, write, reportPath, readReport } = batchFiles('cnv-imports-');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/inputs');
const MAPS = resolve(import.meta.dirname, '../../docs/maps');
const RECORDS_OBJECT = 'c0000000-0000-4000-8000-000000000001';

const run = (args: string[], input?: string) =>
  cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() }, input });
const contact = async (email: string) =>
  (
    (await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<
      Record<string, any>
    >
  )[0];
/** The raw text the emulator holds for a contact's fields (numbers with every digit, as stored). */
const storedFieldsText = async (email: string) => {
  const res = await fetch(`${fx.emulator.url}/_emulator/state/contacts?email=${encodeURIComponent(email)}`);
  const text = await res.text();
  return text.slice(text.indexOf('"fields":'), text.indexOf('}', text.indexOf('"fields":')) + 1);
};
const requests = async () => (await fx.stats()).total;
/** Write requests (what a dry run must never send). */
const writes = async () =>
  Object.entries((await fx.stats()).byRoute as Record<string, number>)
    .filter(([route]) => route.startsWith('POST'))
    .reduce((n, [, c]) => n + c, 0);

describe('no column is dropped silently', () => {
  it('a bare column and a label land in their fields, and the run shows where each column went', async () => {
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('t.csv', 'email,city,First name\nz@example.org,Oslo,Zed\n'),
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect((await contact('z@example.org')).fields).toEqual({ city: 'Oslo', firstName: 'Zed' });
    expect(res.stderr).toMatch(/city +-> fields\.city +\(CONTACT field "City", STRING, by key\)/);
    expect(res.stderr).toMatch(/First name +-> fields\.firstName +\(CONTACT field "First name", STRING, by label\)/);
  });

  it('an unknown column refuses the file before any request (exit 2), naming it and the nearest field; flags leave columns out', async () => {
    const path = write('u.csv', 'email,nonsense,Frist name\nu@example.org,x,Ann\n');
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      `error: unknown_column: ${path}: 2 columns that name nothing POST /v2/contacts takes: "nonsense" (no key or field is near it), "Frist name" (nearest: fields.firstName)`,
    );
    expect(
      res.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toHaveLength(1);
    // The field definitions were read to resolve the columns; nothing was written.
    expect(await writes()).toBe(0);
    const ignored = await run([
      'contacts',
      'upsert',
      '--file',
      path,
      '--ignore-column',
      'nonsense',
      '--map',
      'Frist name=firstName',
    ]);
    expect(ignored.exitCode, ignored.stderr).toBe(0);
    expect(ignored.stderr).toMatch(/nonsense +-> not sent +\(ignored \(--ignore-column\)\)/);
    expect((await contact('u@example.org')).fields).toEqual({ firstName: 'Ann' });
    const all = await run(['contacts', 'upsert', '--file', path, '--ignore-unknown-columns']);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/Frist name +-> not sent +\(ignored \(--ignore-unknown-columns\)\)/);
  });

  it("events: an unknown column is refused; the spec's unnamed members pass only when named (--pass-column)", async () => {
    const path = write('e.csv', 'email,event,occurredAt,plan\nada@example.com,imported,2025-02-03T04:05:06.000Z,pro\n');
    const res = await run(['events', 'track', '--file', path]);
    expect([res.exitCode, res.stderr]).toEqual([
      2,
      expect.stringContaining('2 columns that name nothing POST /v2/events takes: "occurredAt"'),
    ]);
    const ok = await run(['events', 'track', '--file', path, '--pass-column', 'occurredAt', '--map', 'plan=data.plan']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const [event] = (await fx.admin('GET', '/_emulator/state/events?event=imported')) as Array<Record<string, any>>;
    expect(event).toMatchObject({ occurredAt: '2025-02-03T04:05:06.000Z', data: { plan: 'pro' } });
  });

  it("records: columns resolve to the custom object's fields by key or label; an unknown one is refused", async () => {
    const res = await run([
      'records',
      'upsert',
      RECORDS_OBJECT,
      '--file',
      write('r.csv', 'Client Dedup Key,Plan name,SEATS\nimp-1,Pro,3\n'),
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    const [record] = (await fx.admin(
      'GET',
      `/_emulator/state/records?customObjectId=${RECORDS_OBJECT}&clientDedupKey=imp-1`,
    )) as Array<Record<string, any>>;
    expect(record.fields).toMatchObject({ planName: 'Pro', seats: 3 });
    const bad = await run([
      'records',
      'upsert',
      RECORDS_OBJECT,
      '--file',
      write('r2.csv', 'clientDedupKey,plan_nme\nimp-2,Pro\n'),
    ]);
    expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringContaining('"plan_nme" (nearest: fields.planName')]);
  });

  it('a batch add says once which columns it did not use', async () => {
    const res = await run([
      'audience',
      'add',
      AU.newsletter.id,
      '--batch',
      write('b.csv', 'email,First name,city\nada@example.com,Ada,London\n'),
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr.match(/not used: a batch add sends only the identifier/g)).toHaveLength(2);
    expect(res.stderr).toMatch(/First name +-> not sent/);
  });

  it('JSON rows: a key of the first rows that names nothing refuses the file; one first met later makes only its row invalid', async () => {
    const first = await run([
      'contacts',
      'upsert',
      '--file',
      write('k.ndjson', '{"email":"k@example.org","nonsense":1}\n'),
    ]);
    expect([first.exitCode, first.stderr]).toEqual([
      2,
      expect.stringContaining('a column that names nothing POST /v2/contacts takes: "nonsense"'),
    ]);
    // Far past the first block read (about 64 KiB): rows before it may already be sent.
    const rows = Array.from({ length: 3000 }, (_, i) => `{"email":"late-${i}@example.org","City":"Oslo"}`);
    rows.push('{"email":"late-x@example.org","nonsense":1}');
    const report = reportPath();
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('late.ndjson', rows.join('\n') + '\n'),
      '--report',
      report,
      '--dry-run',
    ]);
    expect(res.exitCode).toBe(6);
    const last = readReport(report).at(-1)!;
    expect(last).toMatchObject({
      line: '3001',
      status: 'invalid',
      error: 'unknown_column',
      message: '"nonsense": not a column POST /v2/contacts takes (first seen after the file was checked)',
    });
    // Left out by --ignore-unknown-columns: still said on stderr, when it is met.
    const ignored = await run([
      'contacts',
      'upsert',
      '--file',
      write('late2.ndjson', rows.join('\n') + '\n'),
      '--dry-run',
      '--ignore-unknown-columns',
    ]);
    expect(ignored.exitCode).toBe(0);
    expect(ignored.stderr).toMatch(
      /columns first met at line \d+ of .*late2\.ndjson:\n {2}nonsense +-> not sent +\(ignored \(--ignore-unknown-columns\)\)/,
    );
  });

  it("numeric ids in JSON (a CRM's Contact ID, an id) do not hide the email either", async () => {
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('num-id.ndjson', '{"Contact ID":12345,"email":"numid@example.org"}\n'),
      '--dry-run',
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).body).toEqual({ email: 'numid@example.org' });
  });

  it('--ignore-column and --map name a column exactly when the file spells one so; columns sharing a destination are said', async () => {
    const path = write('twin.csv', 'email,City,city\ntwin@example.org,Oslo,Bergen\n');
    const res = await run(['contacts', 'upsert', '--file', path, '--ignore-column', 'City']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect((await contact('twin@example.org')).fields).toEqual({ city: 'Bergen' });
    const both = await run(['contacts', 'upsert', '--file', path, '--dry-run']);
    expect(both.exitCode).toBe(6);
    expect(both.stderr).toContain(
      '(CONTACT field "City", STRING, by label; so does "city": a row filling both is invalid)',
    );
    const typo = await run(['contacts', 'upsert', '--file', path, '--map', 'Ctiy=-']);
    expect([typo.exitCode, typo.stderr]).toEqual([
      2,
      expect.stringContaining(`--map: ${path} has no column "Ctiy" (nearest: "City")`),
    ]);
  });

  it('a decomposed (NFD) header names the same field as its composed form', async () => {
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write(
        'nfd.csv',
        `email,${'First name'.normalize('NFD')},Ci\u0074y\nnfd@example.org,Ren\u0065\u0301e,Köln\n`.replace(
          'First name',
          'Fi\u0072st name',
        ),
      ),
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect((await contact('nfd@example.org')).fields).toMatchObject({ city: 'Köln' });
  });

  it('--map and --map-file: a target that names nothing, or a line that is no COLUMN=TARGET, is refused naming where it was', async () => {
    const path = write('m.csv', 'Mail,Vorname\nm@example.org,Max\n');
    const bad = await run(['contacts', 'upsert', '--file', path, '--map', 'Mail=email', '--map', 'Vorname=frstName']);
    expect([bad.exitCode, bad.stderr]).toEqual([
      2,
      expect.stringContaining('--map: "frstName" is not something POST /v2/contacts takes; nearest: fields.firstName'),
    ]);
    const mapFile = write('de.map', '# German headers\nMail=email\n\nVorname\n');
    const badFile = await run(['contacts', 'upsert', '--file', path, '--map-file', mapFile]);
    expect([badFile.exitCode, badFile.stderr]).toEqual([
      2,
      expect.stringContaining(`${mapFile} line 4: expected COLUMN=TARGET`),
    ]);
    writeFileSync(mapFile, '# German headers\nMail=email\nVorname=First name\n');
    const ok = await run(['contacts', 'upsert', '--file', path, '--map-file', mapFile]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(
      new RegExp(
        `Vorname +-> fields\\.firstName +\\(CONTACT field "First name", STRING, by label; ${mapFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} line 3\\)`,
      ),
    );
    expect((await contact('m@example.org')).fields).toEqual({ firstName: 'Max' });
  });

  it('--summary-json holds the column table', async () => {
    const summary = join(dir, 'summary.json');
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('s.csv', 'Email,Score,createdAt\ns@example.org,5,2020-01-01T00:00:00Z\n'),
      '--summary-json',
      summary,
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(readFileSync(summary, 'utf8')).columns).toEqual([
      { column: 'Email', sentAs: 'email', note: 'identifier' },
      { column: 'Score', sentAs: 'fields.score', note: 'CONTACT field "Score", NUMBER, by label' },
      { column: 'createdAt', sentAs: null, note: "read-only: a column of cnv's contact export" },
    ]);
  });
});

describe("other tools' exports, with the recipes of docs/maps", () => {
  it.each([
    [
      'HubSpot',
      'hubspot-contacts.csv',
      'hubspot.map',
      'hub.spot@example.com',
      { firstName: 'Hub', lastName: 'Spot', city: 'Hamburg' },
    ],
    [
      'Mailchimp',
      'mailchimp-subscribed.csv',
      'mailchimp.map',
      'mail.chimp@example.com',
      { firstName: 'Mail', lastName: 'Chimp' },
    ],
    [
      'Klaviyo',
      'klaviyo-profiles.csv',
      'klaviyo.map',
      'kla.viyo@example.com',
      { firstName: 'Kla', lastName: 'Viyo', city: 'Oslo' },
    ],
  ])('%s: every column is mapped or left out, and the fields land', async (_, file, map, email, fields) => {
    const path = join(FIXTURES, file);
    const bare = await run(['contacts', 'upsert', '--file', path, '--dry-run']);
    expect(bare.exitCode, 'without the recipe some columns name nothing').toBe(2);
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      path,
      '--map-file',
      join(MAPS, map),
      '--status',
      'subscribed',
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(await contact(email)).toMatchObject({ subscriptionStatus: 'SUBSCRIBED', fields });
  });

  it('HubSpot without a recipe: its numeric Contact ID does not hide the Email, and each row says what identified it', async () => {
    const report = reportPath();
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      join(FIXTURES, 'hubspot-contacts.csv'),
      '--ignore-unknown-columns',
      '--report',
      report,
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    const rows = readReport(report);
    expect(rows.map((r) => [r.status, r.message])).toEqual([
      [
        expect.stringMatching(/^(created|updated)$/),
        'identified by email: "Contact ID" holds "51", not a cnvContactId (UUID), so it was not sent',
      ],
      [
        expect.stringMatching(/^(created|updated)$/),
        'identified by email: "Contact ID" holds "52", not a cnvContactId (UUID), so it was not sent',
      ],
    ]);
    expect(res.stderr).toContain('note: 2 rows: identified by email: "Contact ID" holds "51"');
    expect((await contact('zoe.obrien@example.com')).fields).toEqual({
      firstName: 'Zoë',
      lastName: "O'Brien, Jr.",
      city: 'Saint-Denis, Réunion',
    });
  });
});

describe("cnv's own CSV export re-imports: export, edit, upsert", () => {
  it('every field type and the hard values come back as edited, read-only columns left out with one note', async () => {
    const email = 'round.trip@example.org';
    const hard = {
      firstName: 'Zoë "Z" 🎉',
      lastName: 'line\nbreak, and\r\nCRLF',
      city: '01067',
      score: 9007199254740993n,
      vip: true,
      birthday: '1990-02-28',
      lastSeenAt: '2025-03-01T12:00:00.000Z',
    };
    const ndjson = `{"email":"${email}","fields":{"firstName":${JSON.stringify(hard.firstName)},"lastName":${JSON.stringify(hard.lastName)},"city":"01067","score":9007199254740993,"vip":true,"birthday":"1990-02-28","lastSeenAt":"2025-03-01T12:00:00.000Z"}}\n`;
    expect((await run(['contacts', 'upsert', '--file', write('seed.ndjson', ndjson)])).exitCode).toBe(0);
    const out = join(dir, 'contacts.csv');
    const exported = await run(['export', 'contacts', '--out', out, '--no-state']);
    expect(exported.exitCode, exported.stderr).toBe(0);

    // Edited as a spreadsheet would write it back: every cell text, the header as it was.
    const rows = parse(readFileSync(out), { columns: true, bom: true }) as Array<Record<string, string>>;
    const mine = rows.find((r) => r.email === email)!;
    expect(mine).toMatchObject({
      'First name': hard.firstName,
      'Last name': hard.lastName,
      City: '01067',
      Score: '9007199254740993',
      VIP: 'true',
    });
    Object.assign(mine, {
      'First name': 'Zoë, "edited"',
      City: '0815',
      Score: '12345678901234567890',
      VIP: 'false',
      Birthday: '2000-01-31',
      'Last seen at': '2026-01-01T00:00:00Z',
    });
    const edited = write('edited.csv', stringify([mine], { header: true, columns: Object.keys(rows[0]) }));

    const res = await run(['contacts', 'upsert', '--file', edited]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/1 row: 1 succeeded \(updated 1\)/);
    for (const column of ['sfdcLeadId', 'createdAt', 'updatedAt', '_extra'])
      expect(res.stderr).toMatch(
        new RegExp(`${column} +-> not sent +\\(read-only: a column of cnv's contact export\\)`),
      );
    expect(res.stderr).toMatch(/id +-> cnvContactId/);
    expect(await storedFieldsText(email)).toBe(
      `"fields":{"firstName":"Zoë, \\"edited\\"","lastName":${JSON.stringify(hard.lastName)},"city":"0815","score":12345678901234567890,"vip":false,"birthday":"2000-01-31","lastSeenAt":"2026-01-01T00:00:00Z"}`,
    );
  });

  it('a system-managed status in the export (BOUNCED) is left as the server has it, and the row is still updated', async () => {
    const out = join(dir, 'bounced.csv');
    expect((await run(['export', 'contacts', '--out', out, '--no-state'])).exitCode).toBe(0);
    const rows = (parse(readFileSync(out), { columns: true, bom: true }) as Array<Record<string, string>>).filter(
      (r) => r.email === 'bounced@example.com',
    );
    rows[0]['Last name'] = 'Returned';
    const report = reportPath();
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('b.csv', stringify(rows, { header: true })),
      '--report',
      report,
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readReport(report)[0]).toMatchObject({
      status: 'updated',
      message: 'subscriptionStatus "BOUNCED" is set by the system, not through the API: not sent',
    });
    expect(await contact('bounced@example.com')).toMatchObject({
      subscriptionStatus: 'BOUNCED',
      fields: { lastName: 'Returned' },
    });
  });
});

describe('values exact', () => {
  it('a number above 2^53 is sent with every digit, from NDJSON, CSV and --field', async () => {
    const big = '9007199254740993';
    expect(
      (
        await run([
          'contacts',
          'upsert',
          '--file',
          write('n.ndjson', `{"email":"n1@example.org","fields":{"score":${big}}}\n`),
        ])
      ).exitCode,
    ).toBe(0);
    expect(
      (await run(['contacts', 'upsert', '--file', write('n.csv', `email,score\nn2@example.org,${big}\n`)])).exitCode,
    ).toBe(0);
    expect((await run(['contacts', 'upsert', '--email', 'n3@example.org', '--field', `score=${big}`])).exitCode).toBe(
      0,
    );
    expect((await run(['contacts', 'upsert', '--email', 'n4@example.org', '-F', `score=${big}`])).exitCode).toBe(0);
    for (const n of [1, 2, 3, 4]) expect(await storedFieldsText(`n${n}@example.org`)).toBe(`"fields":{"score":${big}}`);
    // Digits a double rounds away, and numbers it cannot hold at all, both ways.
    const odd = ['0.1234567890123456789', '1e-400', '-12345678901234567890.5'];
    const file = odd.map((n, i) => `{"email":"odd${i}@example.org","fields":{"score":${n}}}`).join('\n') + '\n';
    expect((await run(['contacts', 'upsert', '--file', write('odd.ndjson', file)])).exitCode).toBe(0);
    for (const [i, n] of odd.entries())
      expect(await storedFieldsText(`odd${i}@example.org`)).toBe(`"fields":{"score":${n}}`);
    const oddCsv = await run(['export', 'contacts', '--no-state', '-o', 'csv']);
    // The CSV export finds such numbers by their value (a long spelling, an integer past 2^53):
    // 1e-400, which a double holds as 0, is the documented exception (the NDJSON export keeps it).
    for (const i of [0, 2])
      expect(oddCsv.stdout.split('\r\n').find((l) => l.includes(`odd${i}@`))).toContain(`,${odd[i]},`);
    const oddNdjson = await run(['export', 'contacts', '--no-state', '-o', 'ndjson']);
    expect(oddNdjson.stdout.split('\n').find((l) => l.includes('odd1@'))).toContain('"Score":1e-400');
    // and the read path: contacts get and cnv api print the digits stored
    expect((await run(['contacts', 'get', '--email', 'n1@example.org', '-q', 'fields.score'])).stdout.trim()).toBe(big);
    expect(
      (
        await run(['api', 'GET', '/v2/contacts', '-f', 'email=odd0@example.org', '-q', 'data.contact.fields'])
      ).stdout.replace(/\s/g, ''),
    ).toBe(`{"score":${odd[0]}}`);
    // and back out: the CSV export writes the same digits
    const csv = await run(['export', 'contacts', '--no-state', '-o', 'csv']);
    expect(
      csv.stdout
        .split('\r\n')
        .filter((l) => l.includes('@example.org,') && /n[1-4]@/.test(l))
        .every((l) => l.includes(`,${big},`)),
    ).toBe(true);
  });

  it('a CSV cell "Bob" (quotes and all) reaches a STRING field unchanged', async () => {
    expect(
      (await run(['contacts', 'upsert', '--file', write('q.csv', 'email,firstName\nq@example.org,"""Bob"""\n')]))
        .exitCode,
    ).toBe(0);
    expect((await contact('q@example.org')).fields).toEqual({ firstName: '"Bob"' });
  });
});

describe('encodings and locales', () => {
  it('a Mac OS Roman file (CR line ends) is hinted --encoding macintosh, which reads it right', async () => {
    // Excel 2011 for Mac "CSV": Mac OS Roman (ü is 0x9F), CR alone ends a line.
    const path = join(dir, 'mac-roman.csv');
    writeFileSync(
      path,
      Buffer.concat([Buffer.from('email,lastName\rmac@example.org,M'), Buffer.from([0x9f]), Buffer.from('ller\r')]),
    );
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('try --encoding macintosh');
    expect(await requests()).toBe(0);
    const ok = await run(['contacts', 'upsert', '--file', path, '--encoding', 'macintosh']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect((await contact('mac@example.org')).fields).toEqual({ lastName: 'Müller' });
  });

  it('a German Excel file: its sep=; line is honoured, its cells show the decimal comma it reads them by; --decimal-point refuses them, naming their reading', async () => {
    const path = write(
      'de.csv',
      'sep=;\r\nemail;Score;City\r\nde@example.org;3,5;Köln\r\nde2@example.org;1.234,5;Bonn\r\n',
    );
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `note: ${path} writes NUMBER cells with a decimal comma (line 3: "3,5"); --decimal-point or --decimal-comma names the convention instead`,
    );
    expect((await contact('de@example.org')).fields).toEqual({ score: 3.5, city: 'Köln' });
    expect((await contact('de2@example.org')).fields).toEqual({ score: 1234.5, city: 'Bonn' });
    const report = reportPath();
    const refused = await run(['contacts', 'upsert', '--file', path, '--report', report, '--decimal-point']);
    expect(refused.exitCode).toBe(6);
    expect(readReport(report).map((r) => [r.line, r.status, r.message])).toEqual([
      [
        '3',
        'invalid',
        'fields.score (column "Score"): field "score" (NUMBER): "3,5" is not a number written with a decimal point (--decimal-point); with a decimal comma it is 3.5',
      ],
      [
        '4',
        'invalid',
        'fields.score (column "Score"): field "score" (NUMBER): "1.234,5" is not a number written with a decimal point (--decimal-point); with a decimal comma it is 1234.5',
      ],
    ]);
  });

  it("a pandas or R row index (an unnamed first column) is named as such, and --ignore-column '' leaves it out", async () => {
    const path = write('pandas.csv', ',email,city\n0,pd@example.org,Rome\n');
    const res = await run(['contacts', 'upsert', '--file', path]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('line 1: column 1 of the header has no name (it looks like a pandas or R row index)');
    expect(res.stderr).toContain("hint: leave it out with --ignore-column ''");
    const ok = await run(['contacts', 'upsert', '--file', path, '--ignore-column', '']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect((await contact('pd@example.org')).fields).toEqual({ city: 'Rome' });
  });
});

describe('flags that cannot go together, files that cannot be read', () => {
  it('--max-rows with --resume-from-report is refused (the resume would drop the rows done after them)', async () => {
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('mr.csv', 'email\nmr@example.org\n'),
      '--max-rows',
      '1',
      '--resume-from-report',
      write('r.csv', 'line,identifier,status,cnvContactId,error,message\n'),
    ]);
    expect([res.exitCode, res.stderr]).toEqual([
      2,
      expect.stringContaining('--max-rows: not with --resume-from-report'),
    ]);
  });

  it('--map-file: a FIFO nobody writes ends at Ctrl-C (exit 130); /dev/zero is refused, not read into memory', async () => {
    const fifo = join(dir, 'map.fifo');
    execFileSync('mkfifo', [fifo]);
    const input = write('fifo.csv', 'email\nfifo@example.org\n');
    const child = execa('node', [BIN, 'contacts', 'upsert', '--file', input, '--map-file', fifo], {
      reject: false,
      env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
    });
    await new Promise((r) => setTimeout(r, 700));
    child.kill('SIGINT');
    const ended = await child;
    expect(ended.exitCode).toBe(130);
    const zero = await run(['contacts', 'upsert', '--file', input, '--map-file', '/dev/zero']);
    expect([zero.exitCode, zero.stderr]).toEqual([
      2,
      expect.stringContaining('--map-file: /dev/zero is larger than 1 MiB: not a map file'),
    ]);
  });

  it('a resume from a report of another account (another key) is refused: its rows were not sent to this one', async () => {
    const input = write('acct.csv', 'email\nacct@example.org\n');
    const report = reportPath();
    expect((await run(['contacts', 'upsert', '--file', input, '--report', report])).exitCode).toBe(0);
    const other = await cnv(['contacts', 'upsert', '--file', input, '--resume-from-report', report], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.basic, CNV_CONFIG_DIR: tempConfigDir() },
    });
    expect([other.exitCode, other.stderr]).toEqual([
      2,
      expect.stringMatching(/report_mismatch: .*\(sk_live_demo@[^)]*\), not .*\(sk_live_basic@[^)]*\)/),
    ]);
    expect(other.stderr).not.toContain(fx.emulator.keys.basic);
  });

  it('a map file that maps a column twice, or a header error after a sep= line, names the right line', async () => {
    const map = write('twice.map', 'Vorname=firstName\n# comment\nVorname=lastName\n');
    const twice = await run([
      'contacts',
      'upsert',
      '--file',
      write('v.csv', 'email,Vorname\nv@example.org,V\n'),
      '--map-file',
      map,
    ]);
    expect([twice.exitCode, twice.stderr]).toEqual([
      2,
      expect.stringContaining(`${map} line 3: column "Vorname" is mapped already (${map} line 1)`),
    ]);
    const sep = write('sep.csv', 'sep=;\nemail;email\na@example.org;b@example.org\n');
    const dup = await run(['contacts', 'upsert', '--file', sep]);
    expect([dup.exitCode, dup.stderr]).toEqual([
      2,
      expect.stringContaining(`${sep} line 2: column "email" appears twice in the header`),
    ]);
  });

  it('field definitions that cannot be read (a 503): a column that may be a field stops the run as the transient failure it is (exit 7, issue 38), even with --ignore-unknown-columns', async () => {
    await fx.faults({ status5xxNext: [{ status: 503, count: 2 }] });
    const res = await run([
      'contacts',
      'upsert',
      '--file',
      write('nodefs.csv', 'email,city\nnodefs@example.org,Oslo\n'),
      '--ignore-unknown-columns',
      '--max-retries',
      '0',
    ]);
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(
      /^error: [a-z0-9_]+: cannot read the field definitions, needed to match the columns of the file to fields: Service unavailable/m,
    );
    expect(await contact('nodefs@example.org')).toBeUndefined();
  });
});

describe('labels that look like something else (an account of its own)', () => {
  it("cnv's export of fields labelled like keys, aliases or export columns imports back to those fields; a field created a minute ago is found", async () => {
    const own = await emulatorFixture();
    try {
      const env = { ...own.env, CNV_CONFIG_DIR: tempConfigDir() };
      const go = (args: string[]) => cnv(args, { env });
      for (const [label, key, type, object] of [
        ['score', 'rating', 'number', 'contact'],
        ['Update only', 'uo', 'boolean', 'contact'],
        ['Contact ID', 'crmContactId', 'string', 'contact'],
        ['Created at', 'signupDate', 'date', 'contact'],
        ['City', 'hqCity', 'string', 'company'],
      ]) {
        const made = await go([
          'fields',
          'create',
          '--label',
          label,
          '--key',
          key,
          '--data-type',
          type,
          '--object-type',
          object,
        ]);
        expect(made.exitCode, made.stderr).toBe(0);
      }
      const seed =
        '{"email":"r1@example.org","fields":{"rating":5,"score":1,"uo":true,"crmContactId":"HS-51","signupDate":"2024-01-02","city":"Oslo"}}\n';
      expect((await go(['contacts', 'upsert', '--file', write('lab.ndjson', seed)])).exitCode).toBe(0);
      const out = join(dir, 'labels.csv');
      expect((await go(['export', 'contacts', '--out', out, '--no-state'])).exitCode).toBe(0);
      const rows = (parse(readFileSync(out), { columns: true, bom: true }) as Array<Record<string, string>>).filter(
        (r) => r.email === 'r1@example.org',
      );
      Object.assign(rows[0], {
        score: '4',
        Score: '2',
        'Update only': 'false',
        'Contact ID': 'HS-52',
        'Created at': '2024-01-03',
        City: 'Bergen',
      });
      const edited = write('labels-edited.csv', stringify(rows, { header: true }));
      const res = await go(['contacts', 'upsert', '--file', edited]);
      expect(res.exitCode, res.stderr).toBe(0);
      const stored = (
        (await own.admin('GET', '/_emulator/state/contacts?email=r1%40example.org')) as Array<Record<string, any>>
      )[0];
      expect(stored.fields).toMatchObject({
        rating: 4,
        score: 2,
        uo: false,
        crmContactId: 'HS-52',
        signupDate: '2024-01-03',
        city: 'Bergen',
      });
      // A field created after the cache was written, named by --map: asked for once more.
      expect(
        (
          await go([
            'fields',
            'create',
            '--label',
            'Loyalty tier',
            '--key',
            'tier',
            '--data-type',
            'string',
            '--object-type',
            'contact',
          ])
        ).exitCode,
      ).toBe(0);
      const mapped = await go([
        'contacts',
        'upsert',
        '--file',
        write('tier.csv', 'email,Stufe\nr1@example.org,gold\n'),
        '--map',
        'Stufe=fields.tier',
      ]);
      expect(mapped.exitCode, mapped.stderr).toBe(0);
      expect(
        ((await own.admin('GET', '/_emulator/state/contacts?email=r1%40example.org')) as Array<Record<string, any>>)[0]
          .fields.tier,
      ).toBe('gold');
    } finally {
      await own.close();
    }
  });
});

describe('--dry-run of a file run', () => {
  it('prints each request as one NDJSON line (key masked), --max-rows looks at the first few, nothing is sent', async () => {
    const key = fx.env.CNV_API_KEY!;
    const path = write(
      'dry.csv',
      `email,city,Score\nd1@example.org,"${key}",1\nd2@example.org,Rome,9007199254740993\nd3@example.org,Oslo,3\n`,
    );
    const res = await run(['contacts', 'upsert', '--file', path, '--dry-run']);
    expect(res.exitCode, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(res.stdout).not.toContain(key);
    expect(lines[1]).toBe(
      '{"dryRun":true,"method":"POST","path":"/v2/contacts","lines":[3],"body":{"email":"d2@example.org","fields":{"city":"Rome","score":9007199254740993}}}',
    );
    const few = await run(['contacts', 'upsert', '--file', path, '--dry-run', '--max-rows', '1']);
    expect(few.stdout.trim().split('\n')).toHaveLength(1);
    expect(few.stderr).toMatch(/1 row: 1 valid/);
    // A batch add: one line per request of up to --chunk-size contacts.
    const add = await run([
      'audience',
      'add',
      AU.newsletter.id,
      '--batch',
      path,
      '--dry-run',
      '--chunk-size',
      '2',
      '--ignore-column',
      'Score',
    ]);
    expect(
      add.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).lines),
    ).toEqual([[2, 3], [4]]);
    // The field definitions were read (GET), nothing was written.
    expect(await writes()).toBe(0);
  });
});

describe('reports and summaries to a device through a link', () => {
  it('--report and --summary-json to a link to /proc/self/fd/2 (what /dev/stderr is) write into it, append to a 2>>log, and leave the link as it was', async () => {
    const [link, other, log] = [join(dir, 'my-stderr'), join(dir, 'my-stderr-2'), join(dir, 'stderr.log')];
    symlinkSync('/proc/self/fd/2', link);
    symlinkSync('/proc/self/fd/2', other);
    writeFileSync(log, 'written before\n');
    const input = write('dev.csv', 'email\ndev@example.org\n');
    const res = await execa(
      'bash',
      [
        '-c',
        `node "$0" contacts upsert --file "$1" --report "$2" --summary-json "$3" 2>>"$4"`,
        BIN,
        input,
        link,
        other,
        log,
      ],
      {
        reject: false,
        env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
      },
    );
    const written = readFileSync(log, 'utf8');
    expect(res.exitCode, written).toBe(0);
    expect([lstatSync(link).isSymbolicLink(), lstatSync(other).isSymbolicLink()]).toEqual([true, true]);
    expect(written.startsWith('written before\n')).toBe(true);
    expect(written).toContain('line,identifier,status,cnvContactId,error,message,row,hash,job');
    expect(written).toMatch(/"status": "complete"/);
  });
});
