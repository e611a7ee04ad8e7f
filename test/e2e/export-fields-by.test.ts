import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldKeys, rowWithFieldKeys } from '../../src/exporter/fields-by-key.js';
import { cnv } from '../helpers/cli.js';
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

  it('a file keeps one keying: continuing it with the other is refused; CSV refuses --fields-by key', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-fields-by-')), 'c.ndjson');
    expect(
      (
        await cnv(['export', 'contacts', '--out', out, '--fields-by', 'key', '--max-pages', '1', '--limit', '5'], {
          env: fx.env,
        })
      ).exitCode,
    ).toBe(0);
    const other = await cnv(['export', 'contacts', '--out', out], { env: fx.env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(
      /--fields-by: .*c\.ndjson holds rows with fields keyed by key; it cannot continue keyed by label/,
    );
    const csv = await cnv(['export', 'contacts', '--out', join(tmpdir(), 'never.csv'), '--fields-by', 'key'], {
      env: fx.env,
    });
    expect(csv.exitCode).toBe(2);
    expect(csv.stderr).toMatch(/--fields-by key: NDJSON only/);
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
});
