import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// `contacts sync --full-refresh-after DURATION` bounds how stale the snapshot may get for
// deletions (the export never lists removed contacts): once the last full refresh is older than
// the bound, the run reads the whole account again, and a deleted contact is seen.

const fx = useEmulator();
const ada = FIXTURE_CONTACTS.ada;
const tmp = () => mkdtempSync(join(tmpdir(), 'cnv-stale-'));

describe('contacts sync --full-refresh-after (binary)', () => {
  it('a contact deleted in the account is seen once the last full refresh is older than the bound; the summary and export state list say when it was', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const dir = tmp();
    const file = join(dir, 'in.csv');
    writeFileSync(file, `email,city\n${ada.email},London\n`);
    const sync = (extra: string[] = []) =>
      cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--full-refresh-after', '7d', ...extra], {
        env,
      });
    expect((await sync()).exitCode).toBe(0); // first run: a full refresh; the file matches

    const deleted = await fx.admin('POST', `/_emulator/contacts/${ada.id}/delete`);
    expect(deleted).toMatchObject({ deleted: true });
    // Within the bound: an incremental refresh, which cannot see the deletion.
    const within = await sync();
    expect(within.exitCode).toBe(0);
    expect(within.stderr).not.toMatch(/full-refresh-after/);

    // The last full refresh eight days ago: the snapshot's state as a week-old cron job leaves it.
    const [{ key }] = (
      JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{ key: string }>
    ).filter((s) => s.key.endsWith('/contacts-sync'));
    const { stateFile, fullAt } = JSON.parse(
      (await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout,
    ) as { stateFile: string; fullAt: string };
    expect(Date.now() - Date.parse(fullAt)).toBeLessThan(3_600_000);
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    const old = new Date(Date.now() - 8 * 86_400_000).toISOString();
    state.state.current.fullAt = old;
    writeFileSync(stateFile, JSON.stringify(state));
    const listed = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout).find(
      (s: { key: string }) => s.key === key,
    );
    expect(listed.fullAt).toBe(old);

    const startedAt = Date.now();
    const summary = join(dir, 'summary.json');
    const past = await sync(['--summary-json', summary]);
    expect(past.stderr).toMatch(
      new RegExp(
        `note: the snapshot's last full refresh \\(${old.replace(/\./g, '\\.')}\\) is older than --full-refresh-after 7d: rebuilding it from a full refresh`,
      ),
    );
    expect(past.exitCode).toBe(9);
    expect(past.stdout).toMatch(new RegExp(`"action":"create","contact":"${ada.email}"`));
    const { sync: counts } = JSON.parse(readFileSync(summary, 'utf8'));
    expect(counts).toMatchObject({
      create: 1,
      snapshot: { full: true, reason: expect.stringMatching(/--full-refresh-after 7d/) },
    });
    expect(Date.parse(counts.snapshot.lastFullRefresh)).toBeGreaterThanOrEqual(startedAt - 1000);
    const after = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout).find(
      (s: { key: string }) => s.key === key,
    );
    expect(Date.parse(after.fullAt)).toBeGreaterThanOrEqual(startedAt - 1000);
  });

  it('refuses a value that is no duration (exit 2, naming the flag)', async () => {
    const file = join(tmp(), 'in.csv');
    writeFileSync(file, `email,city\n${ada.email},London\n`);
    const res = await cnv(['contacts', 'sync', '--file', file, '--plan', '--full-refresh-after', 'weekly'], {
      env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--full-refresh-after: expected a duration such as 7d/);
  });
});
