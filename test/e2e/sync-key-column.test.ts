import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cleanEnv, cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { syncTools, UPSERT } from '../helpers/sync-runs.js';

// `contacts sync --key-column` through the binary (docs/sync.md, "A key column"): a person whose
// email changed in the file keeps one contact; a kill -9 while creating or while moving emails,
// then a rerun, leaves the account exactly as the file says; a damaged ledger gives a note and
// never a wrong contact; one run of the job at a time. What it decides is tried in-process
// (test/commands/contacts/sync-key-column.test.ts).

const fx = useEmulator({}, { faults: true, stats: true });
const { write } = batchFiles('cnv-sync-key-e2e-');
const { count, envWith } = syncTools(fx, cnv);

type Contact = { id: string; email: string; fields: Record<string, unknown> };
const withEmail = (email: string): Promise<Contact[]> =>
  fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`);
const accountSize = async (): Promise<number> => (await fx.admin('GET', '/_emulator/exports/info')).contacts;

/** A CRM's file: its own id, an email and a city per person. */
const crm = (n: number, email: (i: number) => string) =>
  `crm_id,email,city\n${Array.from({ length: n }, (_, i) => `crm-${i},${email(i)},City ${i}`).join('\n')}\n`;

function sync(env: Record<string, string>, file: string, ...more: string[]) {
  return cnv(['contacts', 'sync', '--file', file, '--key-column', 'crm_id', ...more], { env });
}

/** A sync killed (-9) once the emulator has answered `after` upserts. */
async function killedSync(env: Record<string, string>, file: string, after: number): Promise<void> {
  await fx.faults({ latencyMs: 10 });
  await fx.resetStats();
  const child = execa(
    'node',
    [BIN, 'contacts', 'sync', '--file', file, '--key-column', 'crm_id', '--concurrency', '2'],
    { env: cleanEnv(env), extendEnv: false, reject: false, stdin: 'ignore' },
  );
  while ((await count(UPSERT)) < after && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
  child.kill('SIGKILL');
  expect((await child).signal).toBe('SIGKILL');
  await fx.clearFaults();
}

describe('contacts sync --key-column (binary)', () => {
  it('an email change keeps one contact: the account has the new email on the same id and not the old one; a rerun sends nothing', async () => {
    const env = envWith();
    const first = await sync(
      env,
      write(
        'first.csv',
        crm(3, (i) => `person-${i}@example.com`),
      ),
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const [before] = await withEmail('person-1@example.com');
    const size = await accountSize();
    const moved = write(
      'moved.csv',
      crm(3, (i) => (i === 1 ? 'person-1.moved@example.com' : `person-${i}@example.com`)),
    );
    await fx.resetStats();
    const run = await sync(env, moved, '--json');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).ledger).toMatchObject({ trusted: true, matched: 3, newEmail: 1 });
    expect(await count(UPSERT)).toBe(1);
    expect(await withEmail('person-1@example.com')).toEqual([]);
    expect((await withEmail('person-1.moved@example.com')).map((c) => c.id)).toEqual([before.id]);
    expect(await accountSize()).toBe(size);
    await fx.resetStats();
    expect((await sync(env, moved, '--exit-code')).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(0);
  });

  it('kill -9 while creating, and again while moving every email, then a rerun each time: one contact per person, its id kept, nothing sent twice but what was in flight', async () => {
    const env = envWith();
    const n = 80;
    const size = await accountSize();
    const created = write(
      'create.csv',
      crm(n, (i) => `killed-${i}@example.com`),
    );
    await killedSync(env, created, 25);
    const sentBefore = await count(UPSERT);
    expect(sentBefore).toBeLessThan(n);
    await fx.resetStats();
    const rerun = await sync(env, created, '--json');
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    // The rows the killed run applied are found by the refresh (unchanged, their contact recorded from it).
    expect(sentBefore + (await count(UPSERT))).toBeLessThanOrEqual(n + 2);
    const { matched, recorded } = JSON.parse(rerun.stdout).ledger;
    expect(matched + recorded).toBe(n);
    expect(matched).toBeGreaterThan(0);
    expect(await accountSize()).toBe(size + n);
    const ids = await Promise.all(
      Array.from({ length: n }, async (_, i) => (await withEmail(`killed-${i}@example.com`)).map((c) => c.id)),
    );
    expect(ids.every((found) => found.length === 1)).toBe(true);

    const moved = write(
      'move.csv',
      crm(n, (i) => `killed-${i}.moved@example.com`),
    );
    await killedSync(env, moved, 25);
    const movedBefore = await count(UPSERT);
    await fx.resetStats();
    const again = await sync(env, moved, '--json');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(movedBefore + (await count(UPSERT))).toBeLessThanOrEqual(n + 2);
    expect(JSON.parse(again.stdout).ledger).toMatchObject({ matched: n, recorded: 0, gone: 0 });
    expect(await accountSize()).toBe(size + n);
    for (let i = 0; i < n; i++) {
      expect(await withEmail(`killed-${i}@example.com`), `row ${i}`).toEqual([]);
      expect(
        (await withEmail(`killed-${i}.moved@example.com`)).map((c) => c.id),
        `row ${i}`,
      ).toEqual(ids[i]);
    }
    await fx.resetStats();
    expect((await sync(env, moved, '--exit-code')).exitCode).toBe(0);
    expect(await count(UPSERT)).toBe(0);
  });

  it('a damaged ledger: a note, each row matched by its email (never the contact an edited line names); the next run trusts its new ledger', async () => {
    const env = envWith();
    const file = write(
      'damage.csv',
      crm(3, (i) => `damage-${i}@example.com`),
    );
    expect((await sync(env, file)).exitCode).toBe(0);
    const [own] = await withEmail('damage-0@example.com');
    // Hand-edited: crm-0 now names grace's contact.
    const dir = join(env.CNV_CONFIG_DIR, 'ledger');
    const base = join(
      dir,
      readdirSync(dir).find((n) => n.endsWith('.ledger'))!,
    );
    writeFileSync(base, readFileSync(base, 'utf8').replace(own.id, FIXTURE_CONTACTS.grace.id));
    const grace = await withEmail(FIXTURE_CONTACTS.grace.email);

    const moved = write(
      'damage-moved.csv',
      crm(3, (i) => (i === 0 ? 'damage-0.moved@example.com' : `damage-${i}@example.com`)),
    );
    const run = await sync(env, moved, '--json');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /note: the ledger of \S+\/contacts-sync\/crm_id is damaged \(its SHA-256 is not the one written with it[^)]*\): no key has a contact this run: each row is matched by its email/,
    );
    expect(JSON.parse(run.stdout).ledger).toMatchObject({ trusted: false, matched: 0 });
    expect(await withEmail(FIXTURE_CONTACTS.grace.email)).toEqual(grace);
    // Matched by email: the new address is a new contact (as without --key-column); the old one is left as it was.
    expect((await withEmail('damage-0.moved@example.com')).map((c) => c.id)).not.toContain(own.id);
    expect((await withEmail('damage-0@example.com')).map((c) => c.id)).toEqual([own.id]);
    expect(readdirSync(dir).some((n) => n.endsWith('.ledger.damaged'))).toBe(true);

    const next = await sync(env, moved, '--json');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({
      sync: { create: 0, update: 0 },
      ledger: { trusted: true, matched: 3 },
    });
  });

  it('one run of the job at a time: `ledger reset` of it exits 7 while a sync holds its lock; --key-column naming no column exits 2 naming the flag', async () => {
    const env = envWith();
    const file = write(
      'locked.csv',
      crm(40, (i) => `locked-${i}@example.com`),
    );
    await fx.faults({ latencyMs: 100 });
    await fx.resetStats();
    const slow = execa(
      'node',
      [BIN, 'contacts', 'sync', '--file', file, '--key-column', 'crm_id', '--concurrency', '1'],
      {
        env: cleanEnv(env),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      },
    );
    try {
      for (let i = 0; i < 300 && (await count(UPSERT)) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const jobs = JSON.parse((await cnv(['ledger', 'list', '--json'], { env })).stdout) as Array<{
        job: string;
        state: string;
      }>;
      expect(jobs).toEqual([expect.objectContaining({ state: 'running' })]);
      const reset = await cnv(['ledger', 'reset', jobs[0].job, '--yes'], { env });
      expect(reset.exitCode).toBe(7);
      expect(reset.stderr).toMatch(
        new RegExp(`another run holds the lock of the ledger of \\S+/contacts-sync/crm_id \\(pid ${slow.pid} `),
      );
    } finally {
      await fx.clearFaults();
      expect((await slow).exitCode).toBe(0);
    }
    const missing = await cnv(['contacts', 'sync', '--file', file, '--key-column', 'CRM Key'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: unknown_column: --key-column "CRM Key": \S+locked\.csv has no such column/m,
    );
  });
});
