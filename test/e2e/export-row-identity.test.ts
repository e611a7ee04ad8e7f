import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { contentHash } from '../../src/lib/content-hash.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { duplicates, statePath } from '../helpers/exports.js';
import { reseedBeforeEach, useEmulator } from '../helpers/emulator.js';

// A contact's export identity is its version and its content with the fields named by key: a
// field relabelled in the account changes the text of every row holding it, not its content,
// so the rows read again from the saved cursor are left out as before (docs/exports.md, "The
// state"). Three cron nights, two relabels and a new field: the files get only the rows whose
// values changed. A state of an earlier cnv (its content hash over the row's text) continues
// exactly once.

const fx = useEmulator();
reseedBeforeEach(fx);
const ada = FIXTURE_CONTACTS.ada;

const relabel = async (key: string, label: string) =>
  expect(await fx.admin('POST', `/_emulator/fields/${key}`, { label })).toMatchObject({ field: { key, label } });

const lines = (path: string) => readFileSync(path, 'utf8').split(/\r?\n/).filter(Boolean);

/** A run of each cron line; the rows each appended. */
async function night(env: Record<string, string>, csv: string, ndjson: string): Promise<[number, number]> {
  const rows: number[] = [];
  for (const args of [
    ['--out', csv, '--fields-by', 'key'],
    ['--out', ndjson],
  ]) {
    const res = await cnv(['export', 'contacts', ...args, '--json'], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    rows.push(JSON.parse(res.stdout).rows);
  }
  return rows as [number, number];
}

describe('a relabel changes no row identity (binary)', () => {
  it('three nights, two relabels and a new field: the CSV by key and the NDJSON file get only the rows whose values changed', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const dir = mkdtempSync(join(tmpdir(), 'cnv-identity-'));
    const [csv, ndjson] = [join(dir, 'contacts-by-key.csv'), join(dir, 'contacts.ndjson')];
    const [all] = await night(env, csv, ndjson);
    expect(all).toBeGreaterThan(1000);
    expect(lines(ndjson)).toHaveLength(all);

    // Night 2: city relabelled, a field made, ada's city changed.
    await relabel('city', 'Town');
    await fx.api('POST', '/v2/fields', { key: 'tier', label: 'Tier', objectType: 'CONTACT', dataType: 'STRING' });
    await fx.api('POST', '/v2/contacts', { email: ada.email, fields: { city: 'Oslo' } });
    expect(await night(env, csv, ndjson)).toEqual([1, 1]);

    // Night 3: lastName relabelled, ada given a tier; nothing else changed.
    await relabel('lastName', 'Surname');
    await fx.api('POST', '/v2/contacts', { email: ada.email, fields: { tier: 'Gold' } });
    expect(await night(env, csv, ndjson)).toEqual([1, 1]);

    // And a night with no change at all.
    expect(await night(env, csv, ndjson)).toEqual([0, 0]);

    expect(lines(csv)).toHaveLength(all + 2 + 1); // the header, the first night's rows, ada twice
    expect(duplicates(lines(csv))).toEqual([]);
    const rows = lines(ndjson).map((l) => JSON.parse(l) as { id: string; updatedAt: string; fields: object });
    expect(rows).toHaveLength(all + 2);
    expect(duplicates(rows.map((r) => `${r.id}@${r.updatedAt}`))).toEqual([]);
    expect(rows.slice(-2).map((r) => r.fields)).toMatchObject([
      { Town: 'Oslo' },
      { Town: 'Oslo', Surname: 'Lovelace', Tier: 'Gold' },
    ]);
  });

  it('a state saved by an earlier cnv (its hash over the row text) continues exactly once, and is saved in the new form', async () => {
    const configDir = tempConfigDir();
    const env = { ...fx.env, CNV_CONFIG_DIR: configDir };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-identity-')), 'contacts.ndjson');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const before = lines(out);
    const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
    }>;
    const stateFile = await statePath(configDir, key);
    // `seen` as cnv wrote it before: id@updatedAt#<64-bit hash of the row's text as sent>.
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(state.state.current.seen).toHaveLength(before.length);
    state.state.current.seen = before.map((line) => {
      const row = JSON.parse(line) as { id: string; updatedAt: string };
      return `${row.id}@${row.updatedAt}#${contentHash(line)}`;
    });
    writeFileSync(stateFile, JSON.stringify(state));

    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'complete', rows: 0, skipped: before.length });
    expect(lines(out)).toEqual(before);
    const seen = (JSON.parse(readFileSync(stateFile, 'utf8')).state.current.seen as string[]).sort();
    expect(seen).toHaveLength(before.length);
    expect(seen.every((id) => !state.state.current.seen.includes(id))).toBe(true);

    // From the new form on, a relabel changes nothing either.
    await relabel('city', 'Town');
    const third = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(JSON.parse(third.stdout)).toMatchObject({ status: 'complete', rows: 0 });
    expect(lines(out)).toEqual(before);
  });
});
