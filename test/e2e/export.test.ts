import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EMAIL_EVENT_TYPES } from '../../src/emulator/model.js';
import { startEmulator } from '../../src/emulator/index.js';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { BIN, cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { csvRecords, duplicates, exportState, ndjsonRows, outDir, statePath } from '../helpers/exports.js';

const fx = useEmulator({ rateLimit: 0 }, { faults: true });

const acme = () => fx.emulator.store.business('acme');
const exportCnv = (args: string[], env: Record<string, string> = {}) =>
  cnvInProcess(['export', ...args], { env: { ...fx.env, ...env } });
const upsert = (body: Record<string, unknown>) => fx.admin('POST', '/v2/contacts', body);
const track = (event: string, email: string, clientEventId: string) =>
  fetch(`${fx.emulator.url}/v2/events`, {
    method: 'POST',
    headers: { 'x-api-key': fx.emulator.keys.full, 'content-type': 'application/json' },
    body: JSON.stringify({ event, email, clientEventId }),
  });
const writeContact = (body: Record<string, unknown>) =>
  fetch(`${fx.emulator.url}/v2/contacts`, {
    method: 'POST',
    headers: { 'x-api-key': fx.emulator.keys.full, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json());
void upsert;

describe('cnv export: full, then incremental (in-process)', () => {
  it('contacts NDJSON: the second run appends exactly the new and changed contacts, none twice', async () => {
    const out = join(outDir(), 'contacts.ndjson');
    const first = await exportCnv(['contacts', '--out', out, '--state-key', 'inc-contacts', '--limit', '700']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(ndjsonRows(out)).toHaveLength(acme().contacts.size);
    expect(first.stderr).toMatch(
      /export contacts complete: [\d,]+ rows in 3 pages .*state "inc-contacts" saved; more remains: no/,
    );

    const nothing = await exportCnv(['contacts', '--out', out, '--state-key', 'inc-contacts', '--limit', '700']);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stderr).toMatch(
      /complete: nothing new since the last run \(\d+ rows? of the last page fetched again: already written, left out\)/,
    );

    await writeContact({ email: FIXTURE_CONTACTS.linus.email, fields: { city: 'Helsinki' } });
    const created = await writeContact({ email: 'incremental.one@example.com', subscriptionStatus: 'SUBSCRIBED' });
    const before = ndjsonRows(out).length;
    const second = await exportCnv([
      'contacts',
      '--out',
      out,
      '--state-key',
      'inc-contacts',
      '--limit',
      '700',
      '--json',
    ]);
    expect(second.exitCode, second.stderr).toBe(0);
    const rows = ndjsonRows(out);
    const appended = rows.slice(before);
    expect(appended.map((r) => r.email)).toEqual([FIXTURE_CONTACTS.linus.email, 'incremental.one@example.com']);
    expect(appended[1].id).toBe(created.data.cnvContactId);
    expect(appended[0].fields.City).toBe('Helsinki');
    expect(duplicates(rows.map((r) => `${r.id}@${r.updatedAt}`))).toEqual([]);
    expect(JSON.parse(second.stdout)).toMatchObject({
      status: 'complete',
      rows: 2,
      stateKey: 'inc-contacts',
      moreRemains: false,
    });
  });

  it('a page cut off mid-body is fetched again from its start: every row once, into a file and to stdout', async () => {
    const clean = await exportCnv(['contacts', '--no-state', '--limit', '400', '-o', 'ndjson']);
    expect(clean.exitCode, clean.stderr).toBe(0);
    const out = join(outDir(), 'cut.ndjson');
    await fx.faults({ cutBodyNext: 2 });
    const intoFile = await exportCnv([
      'contacts',
      '--out',
      out,
      '--state-key',
      'cut-body',
      '--limit',
      '400',
      '--verbose',
    ]);
    expect(intoFile.exitCode, intoFile.stderr).toBe(0);
    expect(intoFile.stderr).toMatch(/retry/);
    expect(readFileSync(out, 'utf8')).toBe(clean.stdout);
    await fx.faults({ cutBodyNext: 1 });
    const toStdout = await exportCnv(['contacts', '--no-state', '--limit', '400', '-o', 'ndjson']);
    expect(toStdout.exitCode, toStdout.stderr).toBe(0);
    expect(toStdout.stdout).toBe(clean.stdout);
  });

  it('contacts CSV: one header across runs; a field created later goes to _extra, nothing dropped', async () => {
    const out = join(outDir(), 'contacts.csv');
    expect((await exportCnv(['contacts', '--out', out, '--state-key', 'inc-csv'])).exitCode).toBe(0);
    const header = csvRecords(out)[0];
    expect(header.slice(0, 9)).toEqual([
      'id',
      'sfdcLeadId',
      'sfdcContactId',
      'sfdcAccountId',
      'email',
      'subscriptionStatus',
      'createdAt',
      'updatedAt',
      'First name',
    ]);
    expect(header.at(-1)).toBe('_extra');

    await fetch(`${fx.emulator.url}/v2/fields`, {
      method: 'POST',
      headers: { 'x-api-key': fx.emulator.keys.full, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'Favourite colour', objectType: 'CONTACT', dataType: 'STRING', key: 'favColour' }),
    });
    const tricky = 'Rome\r\nline two, "quoted"\rbare CR\nbare LF \u2028 separator';
    await writeContact({ email: 'csv.later@example.com', fields: { favColour: 'teal, "deep"', city: tricky } });
    const second = await exportCnv(['contacts', '--out', out, '--state-key', 'inc-csv']);
    expect(second.exitCode, second.stderr).toBe(0);
    const records = csvRecords(out);
    expect(records.filter((r) => r[0] === 'id')).toHaveLength(1);
    expect(records.every((r) => r.length === header.length)).toBe(true);
    const last = Object.fromEntries(header.map((h, i) => [h, records.at(-1)![i]]));
    expect(last).toMatchObject({ email: 'csv.later@example.com', City: tricky });
    expect(JSON.parse(last._extra)).toEqual({ 'fields.Favourite colour': 'teal, "deep"' });
    expect(duplicates(records.map((r) => r.join('\u0000')))).toEqual([]);
  });

  it('custom events: the first run needs --since; later runs add only events tracked since', async () => {
    const out = join(outDir(), 'events.ndjson');
    const refused = await exportCnv(['custom-events', '--out', out, '--state-key', 'inc-events']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--since is required on the first run/);
    const first = await exportCnv([
      'custom-events',
      '--since',
      '2024-12-01T00:00:00Z',
      '--out',
      out,
      '--state-key',
      'inc-events',
    ]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(ndjsonRows(out)).toHaveLength(acme().customEvents.length);

    await track('exported_later', FIXTURE_CONTACTS.grace.email, 'inc-export-1');
    await track('exported_later', FIXTURE_CONTACTS.ada.email, 'inc-export-2');
    const again = await exportCnv(['custom-events', '--out', out, '--state-key', 'inc-events']);
    expect(again.exitCode, again.stderr).toBe(0);
    const rows = ndjsonRows(out);
    expect(rows.slice(-2).map((r) => r.clientEventId)).toEqual(['inc-export-1', 'inc-export-2']);
    expect(rows).toHaveLength(acme().customEvents.length);
    expect(duplicates(rows.map((r) => r.eventId))).toEqual([]);

    const since = await exportCnv([
      'custom-events',
      '--since',
      '2025-01-01',
      '--out',
      out,
      '--state-key',
      'inc-events',
    ]);
    expect(since.exitCode).toBe(2);
    expect(since.stderr).toMatch(/continues from its saved cursor.*\nhint: .*--full/);
    // The saved --since repeated (a cron line that carries it) continues, in any spelling of that instant.
    const same = await exportCnv([
      'custom-events',
      '--since',
      '2024-12-01T01:00:00+01:00',
      '--out',
      out,
      '--state-key',
      'inc-events',
    ]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/complete: 0 rows/);
  });

  it('every email event type, in any case, one state per type; appended events come next', async () => {
    const dir = outDir();
    const results = await Promise.all(
      EMAIL_EVENT_TYPES.map((type, i) =>
        exportCnv(['email-events', '--type', i % 2 ? type.toLowerCase() : type, '--out', join(dir, `${type}.csv`)]),
      ),
    );
    for (const [i, type] of EMAIL_EVENT_TYPES.entries()) {
      expect(results[i].exitCode, results[i].stderr).toBe(0);
      const [header, ...rows] = csvRecords(join(dir, `${type}.csv`));
      expect(rows.length, type).toBe(acme().emailEvents.filter((e) => e.eventType === type).length);
      expect(rows.every((r) => r[header.indexOf('eventType')] === type)).toBe(true);
    }
    const list = await cnvInProcess(['export', 'state', 'list', '--json'], { env: fx.env });
    const keys = JSON.parse(list.stdout).map((s: { key: string }) => s.key);
    for (const type of EMAIL_EVENT_TYPES)
      expect(keys).toContain(
        `sk_live_demo@${new URL(fx.emulator.url).host}/email-events/${type}:${join(dir, `${type}.csv`)}`,
      );

    await fx.admin('POST', '/_emulator/email-events', {
      eventType: 'EMAIL_OPEN',
      email: FIXTURE_CONTACTS.ada.email,
      link: 'x\ny',
    });
    const more = await exportCnv(['email-events', '--type', 'Email_Open', '--out', join(dir, 'EMAIL_OPEN.csv')]);
    expect(more.exitCode).toBe(0);
    expect(more.stderr).toMatch(/complete: 1 (new )?row[ (]/);
  });
});

describe('cnv export: the file and the state disagree (in-process)', () => {
  it('a file shorter than committed is refused naming --full; --full starts it over', async () => {
    const out = join(outDir(), 'short.ndjson');
    expect((await exportCnv(['contacts', '--out', out, '--state-key', 'short'])).exitCode).toBe(0);
    const size = statSync(out).size;
    truncateSync(out, size - 10);
    const res = await exportCnv(['contacts', '--out', out, '--state-key', 'short']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      new RegExp(
        `error: file_shorter_than_committed: --out .*short.ndjson has ${size - 10} bytes, but the export state has ${size} bytes committed`,
      ),
    );
    expect(res.stderr).toMatch(/hint: run again with --full/);
    const full = await exportCnv(['contacts', '--out', out, '--state-key', 'short', '--full']);
    expect(full.exitCode).toBe(0);
    expect(ndjsonRows(out)).toHaveLength(acme().contacts.size);
  });

  it('a first run refuses a non-empty file it did not write', async () => {
    const out = join(outDir(), 'theirs.csv');
    writeFileSync(out, 'precious\n');
    const res = await exportCnv(['contacts', '--out', out, '--state-key', 'theirs']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/already holds 9 bytes that this export state did not write/);
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
  });

  it('a stored cursor the server rejects (tampered): exit 3, state untouched, hint --full', async () => {
    const out = join(outDir(), 'tampered.ndjson');
    expect((await exportCnv(['contacts', '--out', out, '--state-key', 'tampered', '--limit', '500'])).exitCode).toBe(0);
    const path = await statePath(fx.configDir, 'tampered');
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    saved.state.current.cursor = saved.state.current.cursor.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    writeFileSync(path, JSON.stringify(saved, null, '\t'));
    const before = readFileSync(path, 'utf8');
    const res = await exportCnv(['contacts', '--out', out, '--state-key', 'tampered']);
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_cursor: the server rejected the saved cursor of export state "tampered"/);
    expect(res.stderr).toMatch(/hint: .*--full/);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('a stored cursor is rejected by an emulator restarted with other data (cursor keys derive from the seed)', async () => {
    // In this process, as `cnv emulator --port P --seed-contacts 3000 --seed S` starts it.
    const start = (port = 0, seed: 'demo' | number = 'demo') =>
      startEmulator({ port, seed, seedContacts: 3000, quiet: true });
    const a = await start();
    const env = { CNV_BASE_URL: a.url };
    const out = join(outDir(), 'restart.ndjson');
    expect((await exportCnv(['contacts', '--out', out, '--state-key', 'restart'], env)).exitCode).toBe(0);
    expect(ndjsonRows(out).filter((r) => /^bulk\.\d+@example\.com$/.test(r.email))).toHaveLength(3000); // --seed-contacts
    await a.close();
    const b = await start(a.port, 2);
    try {
      const res = await exportCnv(['contacts', '--out', out, '--state-key', 'restart'], { CNV_BASE_URL: b.url });
      expect(res.exitCode).toBe(3);
      expect(res.stderr).toMatch(/invalid_cursor: .*state is unchanged/);
    } finally {
      await b.close();
    }
  });
});

describe('cnv export to stdout (binary, real pipes)', () => {
  const sh = (script: string) =>
    execa('bash', ['-c', script], { reject: false, env: { ...process.env, ...fx.env, CNV: `node ${BIN}` } });

  it('piped into head: EPIPE exits non-zero, the state holds whole pages, and the next run continues without a repeat', async () => {
    const res = await sh('$CNV export contacts --state-key head --limit 50 | head -n 3; exit ${PIPESTATUS[0]}');
    expect(res.exitCode).toBe(141);
    expect(res.stdout.split('\n')).toHaveLength(3);
    // The reader has what it wanted: exit 141 and no error line.
    expect(res.stderr).toBe('');
    const state = (await exportState(fx.configDir, 'head'))!;
    expect(state.current.rows % 50).toBe(0);
    expect(state.current.rows).toBe(state.current.pages * 50);
    expect(state.runs.at(-1)?.status).toBe('interrupted');
    const reference = ndjsonRows((await exportCnv(['contacts', '--no-state'])).stdout);
    const out = join(outDir(), 'rest.ndjson');
    expect((await exportCnv(['contacts', '--state-key', 'head', '--out', out])).exitCode).toBe(0);
    expect(ndjsonRows(out)).toEqual(reference.slice(state.current.rows));
  });

  // Issue 47: the run after a Ctrl-C did not say it resumed.
  it('after a Ctrl-C the next run says where it resumed: "resumed at row N", N the first row not committed', async () => {
    const out = join(outDir(), 'ctrl-c.ndjson');
    await fx.faults({ latencyMs: 150 });
    const run = execa('node', [BIN, 'export', 'contacts', '--out', out, '--state-key', 'ctrl-c', '--limit', '100'], {
      reject: false,
      env: { ...process.env, ...fx.env },
    });
    while (!existsSync(out) || statSync(out).size === 0) await new Promise((r) => setTimeout(r, 20));
    run.kill('SIGINT');
    expect((await run).exitCode).toBe(130);
    await fx.clearFaults();
    const committed = (await exportState(fx.configDir, 'ctrl-c'))!.current.rows;
    expect(committed).toBeGreaterThan(0);
    const next = await exportCnv(['contacts', '--out', out, '--state-key', 'ctrl-c', '--limit', '100']);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toContain(`complete: resumed at row ${(committed + 1).toLocaleString('en-US')}; `);
    const again = await exportCnv(['contacts', '--out', out, '--state-key', 'ctrl-c', '--limit', '100']);
    expect(again.stderr).not.toContain('resumed at');
    expect(again.stderr).toMatch(/complete: nothing new since the last run/);
  });

  it('--defer-commit: commits only when the consumer succeeded', async () => {
    // Pages of 1,000 (the default is one page of 5,000 here): the state then holds a cursor, whose age `state show` gives below.
    const ok = await sh(
      'set -o pipefail; $CNV export contacts --state-key deferred --defer-commit --run ok-1 --limit 1000 --quiet | wc -l && $CNV export state commit deferred --run ok-1 --quiet',
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(Number(ok.stdout.split('\n')[0].trim())).toBe(acme().contacts.size);
    expect((await exportState(fx.configDir, 'deferred'))?.current.rows).toBe(acme().contacts.size);

    const failing = await sh(
      'set -o pipefail; $CNV export contacts --state-key failing --defer-commit --run f-1 --quiet | (cat > /dev/null; exit 1) && $CNV export state commit failing --run f-1',
    );
    expect(failing.exitCode).toBe(1);
    const state = (await exportState(fx.configDir, 'failing'))!;
    expect(state.current.rows).toBe(0);
    expect(state.pending?.rows).toBe(acme().contacts.size);
    // The consumer failed, so the next run delivers the same rows again.
    const retry = await sh('set -o pipefail; $CNV export contacts --state-key failing --defer-commit | wc -l');
    expect(Number(retry.stdout.trim())).toBe(acme().contacts.size);
    expect(retry.stderr).toMatch(/run f-1 has a pending position .* supersedes it/);
    expect(retry.stderr).toMatch(/pending until `cnv export state commit failing --run [0-9a-f-]{36}`/);
  });

  it("--defer-commit, overlapping pipelines: A's commit cannot commit B's position; no row B's failed consumer saw is lost", async () => {
    const dir = outDir();
    // Pipeline A: its export ends, its consumer is still loading.
    const a = await sh(`$CNV export contacts --state-key overlap --defer-commit --run A > ${dir}/a.ndjson`);
    expect(a.exitCode, a.stderr).toBe(0);
    await writeContact({ email: 'overlap.new@example.com' });
    // Pipeline B starts meanwhile; its consumer will fail (no commit).
    const b = await sh(`$CNV export contacts --state-key overlap --defer-commit --run B > ${dir}/b.ndjson`);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/run A has a pending position/);
    // A's consumer succeeded: its commit is refused, since B superseded it.
    const commitA = await cnvInProcess(['export', 'state', 'commit', 'overlap', '--run', 'A'], { env: fx.env });
    expect(commitA.exitCode).toBe(7);
    expect(commitA.stderr).toMatch(
      /error: run_not_pending: export state "overlap": run A is not pending \(superseded; run B is pending instead\); nothing was committed/,
    );
    const shown = JSON.parse(
      (await cnvInProcess(['export', 'state', 'show', 'overlap', '--json'], { env: fx.env })).stdout,
    );
    expect(shown.runs.map((r: { runId: string; status: string }) => [r.runId, r.status])).toEqual([
      ['A', 'superseded'],
      ['B', 'pending'],
    ]);
    // The next run sends every row B's consumer saw (and A's) again.
    const c = await sh(`$CNV export contacts --state-key overlap --defer-commit --run C > ${dir}/c.ndjson`);
    expect(c.exitCode, c.stderr).toBe(0);
    const cIds = new Set(ndjsonRows(`${dir}/c.ndjson`).map((r) => r.id));
    expect(ndjsonRows(`${dir}/a.ndjson`).filter((r) => !cIds.has(r.id))).toEqual([]);
    expect(ndjsonRows(`${dir}/c.ndjson`)).toEqual(ndjsonRows(`${dir}/b.ndjson`));
    expect((await cnvInProcess(['export', 'state', 'commit', 'overlap', '--run', 'C'], { env: fx.env })).exitCode).toBe(
      0,
    );
  });

  it('state show and reset', async () => {
    const show = await cnvInProcess(['export', 'state', 'show', 'deferred', '--json'], { env: fx.env });
    expect(show.exitCode).toBe(0);
    const detail = JSON.parse(show.stdout);
    expect(detail).toMatchObject({
      key: 'deferred',
      kind: 'contacts',
      cursorAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      output: { kind: 'stdout' },
      lockedBy: null,
    });
    expect(detail.runs.at(-1)).toMatchObject({
      runId: 'ok-1',
      status: 'committed',
      rows: detail.rows,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await cnvInProcess(['export', 'state', 'show', 'nope'], { env: fx.env })).exitCode).toBe(5);
    const reset = await cnvInProcess(['export', 'state', 'reset', 'deferred', '--json', '--yes'], { env: fx.env });
    expect(JSON.parse(reset.stdout)).toEqual({ key: 'deferred', removed: true });
    expect(existsSync(await statePath(fx.configDir, 'deferred'))).toBe(false);
  });
});
