import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { csvRecords, ndjsonRows } from '../helpers/exports.js';
import { reseedBeforeEach, useEmulator } from '../helpers/emulator.js';
import { relabelProxy, type RelabelProxy } from '../helpers/relabel-proxy.js';
import { firstPlanChange } from '../helpers/contact-versions.js';
import { messages, records, tap, tapConfig } from '../helpers/tap.js';

// Labels that change while a run reads: two fields swap labels between two pages of the
// contacts export (a proxy relabels them right after page 1 is served). A page is trusted only
// when the field list read before and after it agrees, else it is read again under the new
// labels: every CSV column, NDJSON member by key, snapshot value and tap property stays the
// field's own, in exports, contacts sync's refresh and the tap alike.

// 5,200 bulk contacts and the demo's 2,008: the sync's refresh (5,000 a page) has two pages.
const fx = useEmulator({ seedContacts: 5200 });
reseedBeforeEach(fx);

// City and Last name swap labels.
const SWAP = [
  ['city', 'Last name'],
  ['lastName', 'City'],
] as const;

let proxy: RelabelProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** Each contact's city and lastName, by id, read by key after the swap (the truth). */
async function truth(): Promise<Map<string, { city?: unknown; lastName?: unknown }>> {
  const res = await cnv(['export', 'contacts', '--no-state', '--fields-by', 'key', '-o', 'ndjson'], { env: fx.env });
  expect(res.exitCode, res.stderr).toBe(0);
  return new Map(
    ndjsonRows(res.stdout).map((r) => [r.id as string, { city: r.fields.city, lastName: r.fields.lastName }]),
  );
}

/** Rows whose city or lastName is not the contact's own. */
function wrong(
  rows: Array<{ id: string; city?: unknown; lastName?: unknown }>,
  real: Awaited<ReturnType<typeof truth>>,
) {
  return rows.filter((r) => {
    const t = real.get(r.id)!;
    return (r.city ?? '') !== (t.city ?? '') || (r.lastName ?? '') !== (t.lastName ?? '');
  });
}

describe('two fields swap labels between two export pages (binary)', () => {
  it.each([
    ['CSV by label', 'contacts.csv', [], (r: Record<string, string>) => ({ city: r.City, lastName: r['Last name'] })],
    [
      'CSV by key',
      'contacts.csv',
      ['--fields-by', 'key'],
      (r: Record<string, string>) => ({ city: r.city, lastName: r.lastName }),
    ],
  ])('%s: every row holds its own city and last name', async (_, name, flags, cells) => {
    proxy = await relabelProxy(fx, 1, SWAP);
    const env = { ...fx.env, CNV_BASE_URL: proxy.url, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-drift-')), name);
    const res = await cnv(['export', 'contacts', '--out', out, '--limit', '2000', ...flags], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    const [header, ...records] = csvRecords(out);
    const rows = records.map((r) => ({ id: r[0], ...cells(Object.fromEntries(header.map((h, i) => [h, r[i]]))) }));
    expect(rows).toHaveLength(7208);
    expect(wrong(rows, await truth())).toEqual([]);
    expect(res.stderr).toMatch(
      /^note: the account's contact fields changed while the export into .* read its page 1, read again under the new labels \(export state ".*"\): field city relabelled "City" -> "Last name"/m,
    );
    // One field list before the first page and one after each page (one page read twice).
    expect(proxy.fieldLists()).toBe(proxy.pages() + 1);

    // The next run appends nothing: the file holds every row once.
    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'complete', rows: 0 });
  });

  it('NDJSON by key: every row names its own values by key; NDJSON by label: rows as sent, then nothing again', async () => {
    proxy = await relabelProxy(fx, 1, SWAP);
    const env = { ...fx.env, CNV_BASE_URL: proxy.url, CNV_CONFIG_DIR: tempConfigDir() };
    const dir = mkdtempSync(join(tmpdir(), 'cnv-drift-'));
    const byKey = await cnv(
      ['export', 'contacts', '--out', join(dir, 'k.ndjson'), '--limit', '2000', '--fields-by', 'key'],
      { env },
    );
    expect(byKey.exitCode, byKey.stderr).toBe(0);
    const rows = ndjsonRows(join(dir, 'k.ndjson')).map((r) => ({
      id: r.id,
      city: r.fields.city,
      lastName: r.fields.lastName,
    }));
    expect(rows).toHaveLength(7208);
    expect(wrong(rows, await truth())).toEqual([]);

    // By label, after the swap: the rows name the fields as the account did when each was read.
    const byLabel = await cnv(['export', 'contacts', '--out', join(dir, 'l.ndjson'), '--limit', '2000'], { env });
    expect(byLabel.exitCode, byLabel.stderr).toBe(0);
    const again = await cnv(['export', 'contacts', '--out', join(dir, 'l.ndjson'), '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'complete', rows: 0 });
  });

  it('contacts sync: a row that changes a contact read after the swap is sent (--plan --exit-code: 9, not "in sync")', async () => {
    const email = 'bulk.5100@example.com'; // on the refresh's second page
    const got = await fetch(`${fx.emulator.url}/v2/contacts?email=${email}`, {
      headers: { 'x-api-key': fx.emulator.keys.full },
    });
    const { fields } = ((await got.json()) as { data: { contact: { fields: { city: string; lastName: string } } } })
      .data.contact;
    expect(fields.city).not.toBe(fields.lastName);
    proxy = await relabelProxy(fx, 1, SWAP);
    const env = { ...fx.env, CNV_BASE_URL: proxy.url, CNV_CONFIG_DIR: tempConfigDir() };
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-drift-')), 'in.csv');
    // The contact's city set to the value its last name holds: a change.
    writeFileSync(file, `email,city\n${email},${fields.lastName}\n`);
    const res = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
    expect(res.exitCode, res.stderr).toBe(9);
    const change = firstPlanChange(res.stdout);
    expect(change).toMatchObject({
      action: 'update',
      changes: [{ field: 'fields.city', old: fields.city, new: fields.lastName }],
    });
  });

  it('the tap: every contact RECORD holds its own city and last name', async () => {
    proxy = await relabelProxy(fx, 1, SWAP);
    const res = await tap(['--config', tapConfig(fx, { base_url: proxy.url, page_size: 2000 })]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/note: the account's contact fields changed while the tap read a contacts page/);
    const contacts = records(messages(res.stdout), 'contacts').map((r) => ({
      id: r.id,
      city: r.city,
      lastName: r.lastName,
    }));
    expect(new Set(contacts.map((r) => r.id)).size).toBe(7208);
    expect(wrong(contacts, await truth())).toEqual([]);
  });
});
