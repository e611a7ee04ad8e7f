import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../helpers/emulator.js';
import { FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';

// Issue 36, the import side: the account's fields change between two runs of a recurring job
// (relabelled, created, deleted through the emulator's admin routes), and no column moves to
// another field silently.

const fx = useEmulator({}, { faults: true, stats: true });
const { write } = batchFiles('cnv-fields-change-');
const UPSERT = 'POST /v2/contacts';

async function upserts(): Promise<number> {
  const byStatus: Record<string, number> = (await fx.stats()).byRouteStatus?.[UPSERT] ?? {};
  return Object.values(byStatus).reduce((n, c) => n + c, 0);
}

const envWith = (configDir = tempConfigDir()) => ({ ...fx.env, CNV_CONFIG_DIR: configDir });

async function createField(key: string, label: string, objectType: string, dataType = 'NUMBER'): Promise<void> {
  const made = await cnv(
    ['fields', 'create', '--key', key, '--label', label, '--object-type', objectType, '--data-type', dataType],
    { env: fx.env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
}
const relabel = (key: string, label: string) => fx.admin('POST', `/_emulator/fields/${key}`, { label });

/** Ada as stored: her fields and her company's. */
async function ada(): Promise<{ fields: Record<string, unknown>; company: { fields: Record<string, unknown> } }> {
  return (await fx.admin('GET', `/_emulator/state/contacts?id=${FX.ada.id}`))[0];
}

describe('a bare column that names a CONTACT and a COMPANY field', () => {
  reseedBeforeEach(fx);

  it('after a relabel makes the two share a label: refused before anything is sent, naming both and the --map of each; the map by key stays right across renames', async () => {
    await createField('contactEmployees', 'Headcount', 'contact');
    const file = write('employees.csv', `email,Employees\n${FX.ada.email},40\n`);
    // Before: only the COMPANY field is labelled "Employees".
    const first = await cnv(['contacts', 'upsert', '--file', file], { env: fx.env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect((await ada()).company.fields.employees).toBe(40);

    expect((await relabel('contactEmployees', 'Employees')).field.label).toBe('Employees');
    await fx.resetStats();
    // A config dir of its own: no field list cached (for 5 minutes) from before the relabel, as a nightly job finds it.
    const path = write('employees.csv', `email,Employees\n${FX.ada.email},41\n`);
    const refused = await cnv(['contacts', 'upsert', '--file', path], { env: envWith() });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      'error: unknown_column: ' +
        `${path}: a column names more than one thing POST /v2/contacts takes: ` +
        '"Employees" (names both fields.contactEmployees (CONTACT field labelled "Employees") and companyFields.employees (COMPANY field labelled "Employees"): say which with --map Employees=fields.contactEmployees or --map Employees=companyFields.employees)',
    );
    expect(await upserts()).toBe(0);
    // --ignore-unknown-columns does not drop it: it names two things, not nothing.
    const ignoring = await cnv(['contacts', 'upsert', '--file', file, '--ignore-unknown-columns'], { env: envWith() });
    expect(ignoring.exitCode).toBe(2);
    // So does contacts sync.
    const sync = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env: envWith() });
    expect(sync.exitCode).toBe(2);
    expect(sync.stderr).toContain('--map Employees=fields.contactEmployees or --map Employees=companyFields.employees');
    expect(await upserts()).toBe(0);

    const mapped = await cnv(
      [
        'contacts',
        'upsert',
        '--file',
        write('employees.csv', `email,Employees\n${FX.ada.email},42\n`),
        '--map',
        'Employees=fields.contactEmployees',
      ],
      { env: envWith() },
    );
    expect(mapped.exitCode, mapped.stderr).toBe(0);
    expect((await ada()).fields.contactEmployees).toBe(42);
    expect((await ada()).company.fields.employees).toBe(40);
    // Renamed again (the COMPANY field too): the map by key still writes the CONTACT field.
    await relabel('contactEmployees', 'Staff');
    await relabel('employees', 'Staff');
    const again = await cnv(
      [
        'contacts',
        'upsert',
        '--file',
        write('employees.csv', `email,Employees\n${FX.ada.email},43\n`),
        '--map',
        'Employees=fields.contactEmployees',
      ],
      { env: envWith() },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await ada()).fields.contactEmployees).toBe(43);
    expect((await ada()).company.fields.employees).toBe(40);
  });
});

describe("contacts sync remembers how its file's columns resolved", () => {
  reseedBeforeEach(fx);

  it('refuses a run where a column now names another field (old -> new, the flag named), accepts it with --accept-columns, and remembers it', async () => {
    await createField('contactSeats', 'Seats', 'contact');
    await createField('companySeats', 'Licensed seats', 'company');
    const env = envWith();
    const file = write('seats.csv', `email,Seats\n${FX.ada.email},5\n`);
    const first = await cnv(['contacts', 'sync', '--file', file], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect((await ada()).fields.contactSeats).toBe(5);

    // In the dashboard: the CONTACT field renamed, the COMPANY field given the old label.
    await relabel('contactSeats', 'Seats (contact)');
    await relabel('companySeats', 'Seats');
    await fx.resetStats();
    const line = '"Seats": fields.contactSeats -> companyFields.companySeats';
    for (const extra of [[], ['--plan']]) {
      const refused = await cnv(['contacts', 'sync', '--file', file, ...extra], { env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(`warning: column ${line} since the last sync of ${file}`);
      expect(refused.stderr).toContain(
        `error: columns_changed: ${file}: a column names another target than at the last sync of this file`,
      );
      expect(refused.stderr).toContain('--accept-columns');
      expect(refused.stdout).toBe('');
    }
    expect(await upserts()).toBe(0);
    // --plan with the flag shows the new resolution and remembers nothing: the next run is refused still.
    expect((await cnv(['contacts', 'sync', '--file', file, '--plan', '--accept-columns'], { env })).exitCode).toBe(0);
    expect((await cnv(['contacts', 'sync', '--file', file], { env })).exitCode).toBe(2);

    const accepted = await cnv(['contacts', 'sync', '--file', file, '--accept-columns'], { env });
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain(`note: column ${line} since the last sync of ${file} (--accept-columns)`);
    expect((await ada()).company.fields.companySeats).toBe(5);
    // Remembered: the next run goes through without the flag.
    const next = await cnv(['contacts', 'sync', '--file', file], { env });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('since the last sync');
  });

  it('a field deleted in the account: its column, left out by --ignore-unknown-columns, is a move the memory refuses', async () => {
    await createField('contactSeats', 'Seats', 'contact');
    const env = envWith();
    const file = write('seats.csv', `email,Seats\n${FX.ada.email},3\n`);
    const flags = ['--ignore-unknown-columns'];
    expect((await cnv(['contacts', 'sync', '--file', file, ...flags], { env })).exitCode).toBe(0);
    const deleted = await fx.admin('POST', '/_emulator/fields/contactSeats/delete');
    expect(deleted).toMatchObject({ deleted: true, values: 1 });
    const refused = await cnv(['contacts', 'sync', '--file', file, ...flags], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('"Seats": fields.contactSeats -> not sent (ignored (--ignore-unknown-columns))');
    // Without the flag the column names nothing: refused as unknown, as ever.
    const unknown = await cnv(['contacts', 'sync', '--file', file], { env });
    expect([unknown.exitCode, unknown.stderr]).toEqual([2, expect.stringContaining('error: unknown_column:')]);
  });

  it('a --map by key stays on its field across renames: no refusal, the CONTACT field written', async () => {
    await createField('contactSeats', 'Seats', 'contact');
    await createField('companySeats', 'Licensed seats', 'company');
    const env = envWith();
    const file = write('seats.csv', `email,Seats\n${FX.ada.email},7\n`);
    const map = ['--map', 'Seats=fields.contactSeats'];
    expect((await cnv(['contacts', 'sync', '--file', file, ...map], { env })).exitCode).toBe(0);
    await relabel('contactSeats', 'Seats (contact)');
    await relabel('companySeats', 'Seats');
    const again = await cnv(
      ['contacts', 'sync', '--file', write('seats.csv', `email,Seats\n${FX.ada.email},8\n`), ...map],
      { env },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await ada()).fields.contactSeats).toBe(8);
    expect((await ada()).company.fields).not.toHaveProperty('companySeats');
  });
});

describe('labels and keys that are names of Object.prototype, end to end', () => {
  reseedBeforeEach(fx);

  it('a field labelled __proto__ (and one keyed constructor, labelled toString) goes through the export, the sync snapshot and the upsert: a row that clears it is sent', async () => {
    await createField('protoNote', '__proto__', 'contact', 'STRING');
    await createField('constructor', 'toString', 'contact', 'STRING');
    const env = envWith();
    const set = write('proto.csv', `email,__proto__,toString\n${FX.ada.email},kept,built\n`);
    const first = await cnv(['contacts', 'sync', '--file', set], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/__proto__\s+-> fields\.protoNote/);
    expect(Object.getOwnPropertyDescriptor((await ada()).fields, 'protoNote')?.value).toBe('kept');
    expect(Object.getOwnPropertyDescriptor((await ada()).fields, 'constructor')?.value).toBe('built');

    // The snapshot reads both values back from the export: the same file changes nothing.
    const same = await cnv(['contacts', 'sync', '--file', set, '--plan', '--exit-code'], { env });
    expect(same.exitCode, same.stdout + same.stderr).toBe(0);

    // A row that clears them (null, NDJSON) is a change, and is sent.
    const clear = write('clear.ndjson', `{"email":"${FX.ada.email}","__proto__":null,"toString":null}\n`);
    const plan = await cnv(['contacts', 'sync', '--file', clear, '--plan', '--exit-code'], { env });
    expect(plan.exitCode, plan.stderr).toBe(9);
    const change = plan.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'change');
    expect(change.changes).toEqual([
      { field: 'fields.protoNote', old: 'kept', new: null },
      { field: 'fields.constructor', old: 'built', new: null },
    ]);
    const sent = await cnv(['contacts', 'sync', '--file', clear], { env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const fields = (await ada()).fields;
    expect(Object.hasOwn(fields, 'protoNote') || Object.hasOwn(fields, 'constructor')).toBe(false);
  });

  it('a CSV export gives the fields labelled __proto__ and toString their own columns, and an upsert of that file reads them back', async () => {
    await createField('protoNote', '__proto__', 'contact', 'STRING');
    await createField('constructor', 'toString', 'contact', 'STRING');
    const seed = await cnv(
      ['contacts', 'upsert', '--file', write('seed.csv', `email,__proto__,toString\n${FX.grace.email},p,t\n`)],
      { env: envWith() },
    );
    expect(seed.exitCode, seed.stderr).toBe(0);
    const out = write('contacts.csv', '');
    const exported = await cnv(['export', 'contacts', '--out', out, '--no-state'], { env: envWith() });
    expect(exported.exitCode, exported.stderr).toBe(0);
    // Read as arrays: csv-parse's objects would lose a column named __proto__ themselves.
    const [header, ...rows]: string[][] = parse(readFileSync(out, 'utf8'));
    const grace = rows.find((r) => r[header.indexOf('email')] === FX.grace.email)!;
    expect(['__proto__', 'toString', '_extra'].map((c) => grace[header.indexOf(c)])).toEqual(['p', 't', '']);
    // Edited and imported again: the columns resolve to their fields by label.
    const edited = write('edited.csv', `email,__proto__,toString\n${FX.grace.email},p2,t2\n`);
    const again = await cnv(['contacts', 'upsert', '--file', edited], { env: envWith() });
    expect(again.exitCode, again.stderr).toBe(0);
    const stored = (await fx.admin('GET', `/_emulator/state/contacts?id=${FX.grace.id}`))[0].fields;
    expect([stored.protoNote, Object.getOwnPropertyDescriptor(stored, 'constructor')?.value]).toEqual(['p2', 't2']);
  });
});
