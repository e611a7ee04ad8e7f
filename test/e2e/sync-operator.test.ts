import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { csv, people, syncTools } from '../helpers/sync-runs.js';
import { cnvOnTerminal } from '../helpers/terminal.js';

// Issue 47, `contacts sync` as an operator meets it in its first week, through the built binary:
// the hint of an input error is the error's own on the first run as on later ones, a first run
// that fails leaves no state behind, the summary says what was sent, and the plan's table starts
// with its totals and shows old -> new even when compact.

const fx = useEmulator({ rateLimit: 0 }, { faults: true });
const { write, reportPath } = batchFiles('cnv-sync-operator-');
const { envWith } = syncTools(fx, cnv);

/** The input errors an operator makes: args, stdin, and the hint that error has of its own. */
const inputErrors = (): Array<{ what: string; args: string[]; input?: string; hint: RegExp }> => [
  { what: 'a missing file', args: ['--file', join(reportPath('gone'), 'missing.csv')], hint: /^hint: fix the file/m },
  {
    what: 'an unknown column',
    args: ['--file', write('unknown.csv', 'email,ctiy\nhint-1@example.com,Oslo\n')],
    hint: /^hint: map a column \(--map 'COLUMN=target', --map-file\)/m,
  },
  {
    what: 'an unclosed quote',
    args: ['--file', write('quote.csv', 'email,city\n"hint-2@example.com,Oslo\n')],
    hint: /^hint: fix the file/m,
  },
  { what: 'empty stdin', args: ['--file', '-'], input: '', hint: /^hint: fix the file/m },
];

const hintOf = (stderr: string) => stderr.match(/^hint: .*$/m)?.[0];

/** The export states of a config dir, as `cnv export state list --json` shows them. */
async function states(env: Record<string, string>): Promise<Array<{ key: string }>> {
  const res = await cnv(['export', 'state', 'list', '--json'], { env });
  expect(res.exitCode, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe('contacts sync: an input error has its own hint, first run or not', () => {
  it('a missing file, an unknown column, an unclosed quote, empty stdin: the same hint on the first run as on a later one, never --full-refresh', async () => {
    const firstHints: Array<string | undefined> = [];
    for (const { what, args, input, hint } of inputErrors()) {
      const first = await cnv(['contacts', 'sync', ...args], { env: envWith(), input });
      expect(first.exitCode, `${what}: ${first.stderr}`).toBe(2);
      expect(first.stderr, what).toMatch(hint);
      expect(first.stderr, what).not.toMatch(/--full-refresh/);
      firstHints.push(hintOf(first.stderr));
    }
    // A later run (the snapshot made) says each the same way.
    const env = envWith();
    const good = await cnv(['contacts', 'sync', '--file', write('good.csv', csv([['hint-0@example.com', 'Oslo']]))], {
      env,
    });
    expect(good.exitCode, good.stderr).toBe(0);
    const laterHints: Array<string | undefined> = [];
    for (const { what, args, input } of inputErrors()) {
      const later = await cnv(['contacts', 'sync', ...args], { env, input });
      expect(later.exitCode, what).toBe(2);
      laterHints.push(hintOf(later.stderr));
    }
    expect(firstHints).toEqual(laterHints);
  });
});

describe('contacts sync: a failed first run leaves no state behind', () => {
  it('refused on input, or by an account without the export: no export state, no snapshot file; the next run reads the account whole without a note', async () => {
    const env = envWith();
    for (const { what, args, input } of inputErrors()) {
      const res = await cnv(['contacts', 'sync', ...args], { env, input });
      expect(res.exitCode, what).toBe(2);
    }
    const gated = { ...env, CNV_API_KEY: fx.emulator.keys.basic };
    const file = write('first.csv', csv([['first-run@example.com', 'Oslo']]));
    expect((await cnv(['contacts', 'sync', '--file', file], { env: gated })).exitCode).toBe(4);
    // Both accounts' snapshots are states of this one config directory: none was left.
    expect(await states(env)).toEqual([]);
    // No snapshot file left in the sync directory (the column record neither: nothing was sent).
    const sync = join(env.CNV_CONFIG_DIR, 'sync');
    expect(existsSync(sync) ? readdirSync(sync) : []).toEqual([]);
    const summary = `${reportPath()}.json`;
    const res = await cnv(['contacts', 'sync', '--file', file, '--summary-json', summary], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).not.toMatch(/^note:/m);
    expect(JSON.parse(readFileSync(summary, 'utf8')).sync.snapshot).toMatchObject({ full: true, reason: null });
    expect((await states(env)).map((s) => s.key)).toEqual([expect.stringMatching(/\/contacts-sync$/)]);
  });

  it('a first refresh killed before its first commit leaves no state; killed after it, the next run continues what it committed', async () => {
    const file = write('killed.csv', csv([['killed-first@example.com', 'Oslo']]));
    const before = envWith();
    const killed = await cnv(['contacts', 'sync', '--file', file], {
      env: { ...before, CNV_TEST_CRASH_AT: 'before-state:1' },
    });
    expect(killed.exitCode).not.toBe(0);
    expect(await states(before)).toEqual([]);
    const after = envWith();
    const committed = await cnv(['contacts', 'sync', '--file', file], {
      env: { ...after, CNV_TEST_CRASH_AT: 'after-state:1' },
    });
    expect(committed.exitCode).not.toBe(0);
    expect(await states(after)).toHaveLength(1);
    const summary = `${reportPath()}.json`;
    const next = await cnv(['contacts', 'sync', '--file', file, '--summary-json', summary], { env: after });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/^note:/m);
    expect(JSON.parse(readFileSync(summary, 'utf8')).sync).toMatchObject({ create: 1, snapshot: { full: false } });
  });
});

describe('contacts sync: the summary says what happened', () => {
  it('"3 sent (updated 3), 27 unchanged", and sync.sent in --summary-json (succeeded kept); a dry run says what it would send', async () => {
    const env = envWith();
    const rows = people('said', 30);
    expect((await cnv(['contacts', 'sync', '--file', write('said.csv', csv(rows))], { env })).exitCode).toBe(0);
    const changed = rows.map(([e, c], i): [string, string] => [e, i < 3 ? `Moved ${i}` : c]);
    const file = write('said-changed.csv', csv(changed));
    const dry = await cnv(['contacts', 'sync', '--file', file, '--dry-run'], { env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(
      /^dry run, nothing sent: 30 rows: 3 to send, 27 unchanged, 0 failed, 0 invalid, 0 skipped in /m,
    );
    const summary = `${reportPath()}.json`;
    const res = await cnv(['contacts', 'sync', '--file', file, '--summary-json', summary], { env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^30 rows: 3 sent \(updated 3\), 27 unchanged, 0 failed, 0 invalid, 0 skipped in /m);
    expect(res.stderr).not.toMatch(/succeeded/);
    const doc = JSON.parse(readFileSync(summary, 'utf8'));
    expect(doc).toMatchObject({ rows: 30, succeeded: 30, byStatus: { updated: 3, unchanged: 27 } });
    expect(doc.sync).toMatchObject({ sent: 3, create: 0, update: 3, unchanged: 27 });
  });
});

describe('contacts sync --plan on a terminal', () => {
  it('the totals come first, and a compact row shows old -> new of its first changed fields', async () => {
    const env = envWith();
    const rows = people('planned', 25);
    expect((await cnv(['contacts', 'sync', '--file', write('planned.csv', csv(rows))], { env })).exitCode).toBe(0);
    const file = write('planned-changed.csv', csv(rows.map(([e], i): [string, string] => [e, `Moved ${i}`])));
    const res = await cnvOnTerminal(['contacts', 'sync', '--file', file, '--plan', '--no-progress'], {
      env,
      columns: 120,
      rows: 100,
    });
    expect(res.exitCode, res.stdout).toBe(0);
    const lines = res.stdout.split('\n');
    const total = lines.findIndex((l) => /^Plan: 0 to create, 25 to update, 0 unchanged, 0 invalid\.$/.test(l));
    const header = lines.findIndex((l) => /^line +action +contact +changes$/.test(l));
    expect(total, res.stdout).toBeGreaterThanOrEqual(0);
    expect(header).toBeGreaterThan(total);
    expect(lines[header + 1]).toMatch(/^2 +update +planned-0@example\.com +fields\.city: City 0 -> Moved 0$/);
    expect(lines.filter((l) => /^\d+ +update +planned-/.test(l))).toHaveLength(25);
  });
});
