import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES, FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cleanEnv, cnv, tempConfigDir } from '../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../helpers/emulator.js';

// `audience sync` through the binary: the audience mirrors the file, removing only what the job
// added, only after a whole file, never past --max-removals without the flag; a kill -9 loses no
// outcome and costs no extra removal; a damaged ledger sends everything and removes nothing.

const fx = useEmulator({ seedContacts: 3200 });
reseedBeforeEach(fx);
const { write, reportPath, readReport } = batchFiles('cnv-audience-sync-');
const AUD = FIXTURE_AUDIENCES.newsletter.id;
const ADD = 'POST /v2/audiences/:audienceId/contacts/batch';
const DELETE = 'DELETE /v2/audiences/:audienceId/contacts';
// ada and grace: members added some other way, before any sync.
const BEFORE = [FIXTURE_CONTACTS.ada.id, FIXTURE_CONTACTS.grace.id];

const email = (i: number) => `bulk.${i}@example.com`;
const bulkId = (i: number) => `f0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const csv = (ids: number[]) => `email\n${ids.map(email).join('\n')}\n`;

async function members(): Promise<string[]> {
  return ((await fx.admin('GET', `/_emulator/state/audiences/${AUD}`)) as { memberIds: string[] }).memberIds.sort();
}

/** Requests the emulator answered on a route since the last reset of its stats. */
async function count(route: string): Promise<number> {
  return (await fx.stats()).byRoute?.[route] ?? 0;
}

function sync(file: string, config: string, ...more: string[]) {
  return cnv(['audience', 'sync', AUD, '--file', file, ...more], { env: { ...fx.env, CNV_CONFIG_DIR: config } });
}

const expected = (ids: number[], ...others: string[]) => [...BEFORE, ...ids.map(bulkId), ...others].sort();

describe('audience sync (binary)', () => {
  it('an audience of 3,000 from a file, then the file with 30 left and 30 new: 30 adds in one request, 30 removals; members added by hand stay', async () => {
    const config = tempConfigDir();
    await fx.resetStats();
    const first = await sync(write('first.csv', csv(range(0, 3000))), config, '--json');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).ledger).toMatchObject({ added: 3000, removed: 0, trusted: false });
    expect(await count(ADD)).toBe(3);
    expect(await members()).toEqual(expected(range(0, 3000)));

    // One more member, added by hand: never the job's.
    expect((await cnv(['audience', 'add', AUD, '--email', email(3100)], { env: fx.env })).exitCode).toBe(0);
    await fx.resetStats();
    const report = reportPath();
    const second = await sync(write('second.csv', csv(range(30, 3030))), config, '--report', report, '--json');
    expect(second.exitCode, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).ledger).toMatchObject({ added: 30, removed: 30, unchanged: 2970, held: 0 });
    expect(await count(ADD)).toBe(1);
    expect(await count(DELETE)).toBe(30);
    expect(await members()).toEqual(expected(range(30, 3030), bulkId(3100)));
    const rows = readReport(report);
    expect(
      rows
        .filter((r) => r.status === 'removed')
        .map((r) => r.cnvContactId)
        .sort(),
    ).toEqual(range(0, 30).map(bulkId).sort());
    expect(rows.filter((r) => r.status === 'added')).toHaveLength(30);

    // In sync: nothing to send, --exit-code 0.
    await fx.resetStats();
    const third = await sync(write('third.csv', csv(range(30, 3030))), config, '--exit-code', '--plan');
    expect(third.exitCode, third.stderr).toBe(0);
    expect(JSON.parse(third.stdout.trim())).toMatchObject({ type: 'summary', add: 0, remove: 0, requests: 0 });
    expect((await fx.stats()).total).toBe(0);
  });

  it('an empty file, and a file cut short (a quote never closed), remove nothing', async () => {
    const config = tempConfigDir();
    expect((await sync(write('all.csv', csv(range(0, 200))), config)).exitCode).toBe(0);
    await fx.resetStats();
    const empty = await sync(write('empty.csv', 'email\n'), config);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stderr).toContain('nothing is removed this run: the file holds no rows');
    const cut = await sync(write('cut.csv', `${csv(range(0, 100))}"${email(150)}\n`), config);
    expect(cut.exitCode).toBe(2);
    expect(cut.stderr).toMatch(/quote/);
    expect(await count(DELETE)).toBe(0);
    expect(await members()).toEqual(expected(range(0, 200)));
  });

  it('--max-removals: past it (default 10% of the members, at least 100) removals are held, listed, exit 6, until the flag allows them', async () => {
    const config = tempConfigDir();
    expect((await sync(write('all.csv', csv(range(0, 300))), config)).exitCode).toBe(0);
    await fx.resetStats();
    const fewer = write('fewer.csv', csv(range(0, 150)));
    const report = reportPath();
    const held = await sync(fewer, config, '--report', report);
    expect(held.exitCode, held.stderr).toBe(6);
    expect(held.stderr).toContain('held: 150 removals, more than --max-removals 100');
    expect(held.stderr).toContain(`held: email:${email(150)} (${bulkId(150)})`);
    expect(readReport(report).filter((r) => r.status === 'held')).toHaveLength(150);
    const small = await sync(fewer, config, '--max-removals', '20');
    expect(small.exitCode).toBe(6);
    expect(await count(DELETE)).toBe(0);
    expect(await members()).toEqual(expected(range(0, 300)));
    const allowed = await sync(fewer, config, '--max-removals', '150');
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect(await count(DELETE)).toBe(150);
    expect(await members()).toEqual(expected(range(0, 150)));
  });

  it('kill -9 in the middle of the removals, then a rerun: the audience is exactly the file, no removal sent twice but the one in flight', async () => {
    const config = tempConfigDir();
    expect((await sync(write('all.csv', csv(range(0, 600))), config)).exitCode).toBe(0);
    await fx.resetStats();
    await fx.faults({ latencyMs: 60 });
    const next = write('next.csv', csv(range(60, 660)));
    const child = execa('node', [BIN, 'audience', 'sync', AUD, '--file', next, '--concurrency', '1'], {
      env: cleanEnv({ ...fx.env, CNV_CONFIG_DIR: config }),
      extendEnv: false,
      reject: false,
    });
    for (let i = 0; i < 300 && (await count(DELETE)) < 15; i++) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const before = await count(DELETE);
    expect(before).toBeGreaterThanOrEqual(15);
    expect(before).toBeLessThan(60);
    await fx.clearFaults();
    const rerun = await sync(next, config, '--json');
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout).ledger).toMatchObject({ trusted: true, added: 0 });
    expect(await members()).toEqual(expected(range(60, 660)));
    // The killed run's removals that were recorded are not sent again: at most the one in flight is.
    expect(await count(DELETE)).toBeLessThanOrEqual(61);
    expect(await count(ADD)).toBe(1);
  });

  it('a damaged ledger: a note, every row sent again, nothing removed that run; the next run trusts its new ledger', async () => {
    const config = tempConfigDir();
    expect((await sync(write('all.csv', csv(range(0, 200))), config)).exitCode).toBe(0);
    const dir = join(config, 'ledger');
    const base = join(
      dir,
      readdirSync(dir).find((n) => n.endsWith('.ledger'))!,
    );
    writeFileSync(base, readFileSync(base, 'utf8').replace(`email:${email(7)}`, `email:${email(8)}`));
    await fx.resetStats();
    const fewer = write('fewer.csv', csv(range(0, 190)));
    const damaged = await sync(fewer, config, '--json');
    expect(damaged.exitCode, damaged.stderr).toBe(0);
    expect(damaged.stderr).toMatch(/note: the ledger of .* is damaged \(its SHA-256 is not the one written with it/);
    expect(JSON.parse(damaged.stdout).ledger).toMatchObject({ trusted: false, added: 190, removed: 0 });
    expect(await count(ADD)).toBe(1);
    expect(await count(DELETE)).toBe(0);
    expect(readdirSync(dir).some((n) => n.endsWith('.ledger.damaged'))).toBe(true);
    const again = await sync(fewer, config, '--json');
    expect(JSON.parse(again.stdout).ledger).toMatchObject({ trusted: true, unchanged: 190, added: 0, removed: 0 });
    expect(await members()).toEqual(expected(range(0, 200)));
  });
});
