import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { fieldKeys, rowWithFieldKeys } from '../../src/exporter/fields-by-key.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The contacts export keys `fields` by label, as the API does; --fields-by key gives the keys
// `contacts get` uses, so a script can join the two. A label two fields share names neither.

const fx = useEmulator();
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('export contacts --fields-by key (binary)', () => {
  it('rows join with contacts get by key; a shared label goes to unresolvedFields, never dropped or guessed; numbers keep every digit', async () => {
    expect(
      (
        await cnv(
          ['fields', 'create', '--label', 'City', '--key', 'town', '--object-type', 'contact', '--data-type', 'string'],
          { env: fx.env },
        )
      ).exitCode,
    ).toBe(0);
    const up = await cnv(
      [
        'contacts',
        'upsert',
        '--email',
        'join.by.key@example.com',
        '--field',
        'city=Oslo',
        '--field',
        'town=Bergen',
        '--field',
        'firstName=Ada',
        '-F',
        'score=9007199254740993',
      ],
      { env: fx.env },
    );
    expect(up.exitCode, up.stderr).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'cnv-fields-by-'));
    const byLabel = join(dir, 'label.ndjson');
    const byKey = join(dir, 'key.ndjson');
    expect((await cnv(['export', 'contacts', '--out', byLabel, '--no-state'], { env: fx.env })).exitCode).toBe(0);
    const keyed = await cnv(['export', 'contacts', '--out', byKey, '--no-state', '--fields-by', 'key'], {
      env: fx.env,
    });
    expect(keyed.exitCode, keyed.stderr).toBe(0);
    expect(keyed.stderr).toMatch(
      /^warning: --fields-by key: labels two fields share cannot name one field: "City" \(city, town\); a member named by such a label goes to unresolvedFields$/m,
    );
    const labelRow = rows(byLabel).find((r) => r.email === 'join.by.key@example.com')!;
    const keyRow = rows(byKey).find((r) => r.email === 'join.by.key@example.com')!;
    expect(labelRow.fields).toMatchObject({ 'First name': 'Ada', City: 'Oslo', 'City (town)': 'Bergen' });
    // (JSON.parse rounds 2^53+1: the file's own text is checked for its digits below.)
    expect(keyRow.fields).toEqual({ firstName: 'Ada', town: 'Bergen', score: 2 ** 53 });
    expect(keyRow.unresolvedFields).toEqual({ City: 'Oslo' });
    expect(readFileSync(byKey, 'utf8')).toContain('"score":9007199254740993');
    const got = JSON.parse(
      (await cnv(['contacts', 'get', '--email', 'join.by.key@example.com'], { env: fx.env })).stdout,
    ) as { fields: Record<string, unknown> };
    for (const [key, value] of Object.entries(keyRow.fields as Record<string, unknown>))
      expect(got.fields[key], key).toEqual(value);
  });

  it('a file keeps one keying: a later run without --fields-by follows it, a run naming the other is refused (exit 2)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-fields-by-')), 'c.ndjson');
    expect(
      (
        await cnv(['export', 'contacts', '--out', out, '--fields-by', 'key', '--max-pages', '1', '--limit', '5'], {
          env: fx.env,
        })
      ).exitCode,
    ).toBe(0);
    const followed = await cnv(['export', 'contacts', '--out', out, '--max-pages', '1', '--limit', '5'], {
      env: fx.env,
    });
    expect(followed.exitCode, followed.stderr).toBe(0);
    const written = rows(out);
    expect(written).toHaveLength(10);
    for (const row of written) expect(Object.keys(row.fields as object)).not.toContain('First name');
    const other = await cnv(['export', 'contacts', '--out', out, '--fields-by', 'label'], { env: fx.env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(
      /^error: usage: --fields-by label: .*c\.ndjson holds rows naming their fields by field keys, as its export state records; it cannot continue by label$/m,
    );
    expect(other.stderr).toMatch(/hint: leave --fields-by out \(a run without it follows the file's\)/);
    expect(rows(out)).toHaveLength(10);
  });

  it('the renaming itself: a label, the `Label (key)` form of a shared one, members in order', () => {
    const keys = fieldKeys([
      { key: 'city', label: 'City' },
      { key: 'town', label: 'City' },
      { key: 'vip', label: 'VIP' },
    ]);
    const row = rowWithFieldKeys(
      { id: 'x', fields: { VIP: true, City: 'a', 'City (town)': 'b', Unknown: 1 }, updatedAt: 't' },
      keys,
    );
    expect(JSON.stringify(row)).toBe(
      '{"id":"x","fields":{"vip":true,"town":"b"},"unresolvedFields":{"City":"a","Unknown":1},"updatedAt":"t"}',
    );
  });

  it('CSV --fields-by key: a header of field keys that a relabel leaves as it is; the state records it, so a run without the flag follows the file', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-fields-by-')), 'contacts.csv');
    const first = await cnv(['export', 'contacts', '--out', out, '--fields-by', 'key'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const header = (parse(readFileSync(out), { to_line: 1 }) as string[][])[0];
    expect(header.slice(8)).toEqual(expect.arrayContaining(['firstName', 'lastName', 'city', 'town', 'score']));
    expect(header).not.toContain('First name');
    expect(header.at(-1)).toBe('_extra');

    expect(await fx.admin('POST', '/_emulator/fields/firstName', { label: 'Given name' })).toMatchObject({
      field: { key: 'firstName', label: 'Given name' },
    });
    try {
      const up = await cnv(['contacts', 'upsert', '--email', 'keyed.csv@example.com', '--field', 'firstName=Keyed'], {
        env,
      });
      expect(up.exitCode, up.stderr).toBe(0);
      const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stderr).toMatch(
        /field firstName relabelled "First name" -> "Given name": it keeps its column "firstName"/,
      );
      expect(JSON.parse(again.stdout)).toMatchObject({ extra: { values: 0 } });
      const all = parse(readFileSync(out), { columns: true }) as Array<Record<string, string>>;
      expect(Object.keys(all[0])).toEqual(header); // one header for the whole file
      expect(all.find((r) => r.email === 'keyed.csv@example.com')).toMatchObject({ firstName: 'Keyed', _extra: '' });

      const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
        key: string;
      }>;
      const shown = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout) as {
        stateFile: string;
      };
      expect(JSON.parse(readFileSync(shown.stateFile, 'utf8')).state.current).toMatchObject({
        fieldsBy: 'key',
        csv: { columns: header },
      });
      const label = await cnv(['export', 'contacts', '--out', out, '--fields-by', 'label'], { env });
      expect(label.exitCode).toBe(2);
      expect(label.stderr).toMatch(
        /^error: usage: --fields-by label: .*contacts\.csv holds a header of field keys, as its export state records; it cannot continue by label$/m,
      );
    } finally {
      await fx.admin('POST', '/_emulator/fields/firstName', { label: 'First name' });
    }
  });
});
