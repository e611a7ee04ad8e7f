import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { hostileServer } from '../helpers/hostile-server.js';

// A CSV export's field columns are bound to field keys when the file is made: a field
// relabelled in the account keeps its column on the next incremental run into the same file,
// and a field made since is announced (a note, the summary, the run's record) and lands in
// `_extra`, the only place the file's fixed header has for it (counted in the summary). An
// NDJSON file (fields by label) records the labels each run read, and the next says a relabel.

const fx = useEmulator();
const ada = FIXTURE_CONTACTS.ada;

const api = (method: string, path: string, body: unknown): Promise<unknown> => fx.api(method, path, body);

/** A field relabelled in the dashboard, a field created, and ada written with `values`. */
async function dashboardChange(
  [key, label]: [string, string],
  [added, addedLabel]: [string, string],
  values: Record<string, string>,
): Promise<void> {
  expect(await fx.admin('POST', `/_emulator/fields/${key}`, { label })).toMatchObject({ field: { key, label } });
  await api('POST', '/v2/fields', { key: added, label: addedLabel, objectType: 'CONTACT', dataType: 'STRING' });
  await api('POST', '/v2/contacts', { email: ada.email, fields: values });
}

describe('a CSV export across a relabel and a new field (binary)', () => {
  it('the relabelled field keeps its column, the new one goes to _extra, announced on stderr, in the summary and in the run record', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-fields-')), 'contacts.csv');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const header = (parse(readFileSync(out), { to_line: 1 }) as string[][])[0];
    expect(header).toContain('City');

    await dashboardChange(['city', 'Town'], ['tier', 'Tier'], { city: 'Oslo', tier: 'Gold' });

    const res = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /note: the account's contact fields changed since .*field city relabelled "City" -> "Town": it keeps its column "City"/,
    );
    expect(res.stderr).toMatch(
      /new field tier \("Tier"\) has no column in the header: its values go to _extra as "fields\.Tier"/,
    );
    const summary = JSON.parse(res.stdout);
    // ada's new version alone: the rows of the page read again whose text changed with the label
    // are the same content (a row's identity names its fields by key).
    expect(summary.rows).toBe(1);
    expect(summary).toMatchObject({
      fieldChanges: {
        relabelled: [{ key: 'city', column: 'City', from: 'City', to: 'Town' }],
        added: [{ key: 'tier', label: 'Tier' }],
        removed: [],
      },
      // The values no column holds are counted: ada's tier, one value in one row.
      extra: { values: 1, rows: 1, members: ['fields.Tier'] },
    });
    expect(res.stderr).toMatch(/^export contacts complete: .*; 1 value in _extra \(fields\.Tier\); state .* saved/m);

    const rows = parse(readFileSync(out), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual(header); // one header for the whole file
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ email: ada.email, City: 'Oslo' });
    expect(JSON.parse(last._extra)).toEqual({ 'fields.Tier': 'Gold' });

    const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
    }>;
    const shown = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout) as {
      runs: Array<{ fieldChanges?: unknown; extra?: unknown }>;
    };
    expect(shown.runs.at(-1)!.fieldChanges).toMatchObject({ added: [{ key: 'tier' }] });
    expect(shown.runs.at(-1)).toMatchObject({ extra: { values: 1, rows: 1, members: ['fields.Tier'] } });

    // The round trip on the file made before the renames: edit ada's row, import it back.
    expect(await fx.admin('POST', '/_emulator/fields/firstName', { label: 'Given name' })).toMatchObject({
      field: { label: 'Given name' },
    });
    const edited = join(mkdtempSync(join(tmpdir(), 'cnv-fields-')), 'edited.csv');
    writeFileSync(
      edited,
      stringify([header, header.map((c) => ({ ...last, 'First name': 'Augusta', City: 'Bergen' })[c] ?? '')]),
    );
    const imported = await cnv(['contacts', 'upsert', '--file', edited], { env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const got = await cnv(['contacts', 'get', '--email', ada.email, '--json'], { env });
    expect(JSON.parse(got.stdout).fields).toMatchObject({ firstName: 'Augusta', city: 'Bergen', tier: 'Gold' });

    // Each relabel is said once (city's was, firstName's is new); the field without a column on every run.
    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(again.stderr).not.toMatch(/field city relabelled/);
    expect(JSON.parse(again.stdout).fieldChanges).toMatchObject({
      relabelled: [{ key: 'firstName', column: 'First name', from: 'First name', to: 'Given name' }],
      added: [{ key: 'tier' }],
    });
  });

  it('NDJSON (fields by label): a relabel and a new field are said on stderr, in the summary and in the run record; the rows name them as the account does', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-fields-')), 'contacts.ndjson');
    const first = await cnv(['export', 'contacts', '--out', out], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/fields changed/);

    await dashboardChange(['lastName', 'Surname'], ['plan', 'Plan'], { lastName: 'Byron', plan: 'Pro' });

    const res = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    // One line each, naming the file and its state.
    expect(res.stderr).toMatch(
      /^note: the account's contact fields changed since the last run into .*contacts\.ndjson \(export state ".*contacts\.ndjson"\): field lastName relabelled "Last name" -> "Surname": rows from now on name it "Surname" in fields \(--fields-by key names fields by key, stable across renames\)$/m,
    );
    expect(res.stderr).toMatch(
      /^note: the account's contact fields changed since the last run into .*contacts\.ndjson \(export state ".*"\): new field plan: rows name it "Plan" in fields$/m,
    );
    const summary = JSON.parse(res.stdout);
    expect(summary.fieldChanges).toEqual({
      relabelled: [{ key: 'lastName', from: 'Last name', to: 'Surname' }],
      added: [{ key: 'plan', label: 'Plan' }],
      removed: [],
    });
    expect(summary).not.toHaveProperty('extra'); // NDJSON has no _extra: every member is in its row
    const last = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(last).toMatchObject({ email: ada.email, fields: { Surname: 'Byron', Plan: 'Pro' } });

    const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
    }>;
    const shown = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout) as {
      runs: Array<{ fieldChanges?: unknown }>;
    };
    expect(shown.runs.at(-1)!.fieldChanges).toMatchObject({ relabelled: [{ key: 'lastName', to: 'Surname' }] });

    // Said once: the next run compares with the labels this run recorded.
    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/fields changed/);
    expect(JSON.parse(again.stdout)).not.toHaveProperty('fieldChanges');
  });
});

describe('NDJSON by label: a field list the server refuses is a warning, never a lost export (binary)', () => {
  it('403 for GET /v2/fields: the rows are written, the next run continues, the warning names what is not noted', async () => {
    const server = await hostileServer((req, res) => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if ((req.url ?? '').startsWith('/v2/fields'))
        return json(403, { error: { code: 'forbidden', message: 'no permission to list fields' } });
      return json(200, {
        data: { contacts: [{ id: 'c1', email: 'a@example.com', updatedAt: '2025-01-01T00:00:00.123Z', fields: {} }] },
        pagination: { nextCursor: null },
      });
    });
    try {
      const dir = tempConfigDir();
      const out = join(dir, 'contacts.ndjson');
      const env = {
        CNV_CONFIG_DIR: dir,
        CNV_BASE_URL: server.url,
        CNV_API_KEY: fx.emulator.keys.full,
        CNV_RATE_SHARE: 'off',
      };
      for (const run of [1, 2]) {
        const res = await cnv(['export', 'contacts', '--out', out], { env });
        expect(res.exitCode, `run ${run}: ${res.stderr}`).toBe(0);
        expect(res.stderr).toMatch(
          /warning: the field list could not be read \(forbidden, HTTP 403\): fields relabelled/,
        );
      }
      // The same row twice from the server, once in the file.
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
