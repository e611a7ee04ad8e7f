import fs, { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FIXTURE_CONTACTS } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

// contacts sync in-process: the plan's forms (a table on a terminal, NDJSON with -q per line) and
// the usage errors. The guarantees themselves are tried through the binary (test/e2e/sync.test.ts).

const fx = useEmulator();

function file(name: string, text: string): string {
  const path = join(fx.configDir, name);
  writeFileSync(path, text);
  return path;
}

describe('contacts sync --plan', () => {
  it('on a terminal: a table, one line per changed value ("update?" when sent because unsure), then the counts', async () => {
    const path = file(
      'plan.csv',
      `email,city,companyFields.employees\n${FIXTURE_CONTACTS.ada.email},Paris,\n${FIXTURE_CONTACTS.grace.email},,12\nbrand.new@example.com,Rome,\n`,
    );
    const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 120,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^line +action +contact +field +old +new$/);
    expect(lines[1]).toMatch(/^2 +update +ada@example\.com +fields\.city +London +Paris$/);
    expect(lines[2]).toMatch(/^3 +update\? +grace@example\.com +\(companyFields are not in the contacts export\)/);
    expect(lines[3]).toMatch(/^4 +create +brand\.new@example\.com +email +\(unset\) +brand\.new@example\.com$/);
    expect(lines.at(-1)).toBe(
      'Plan: 1 to create, 2 to update (1 of them because cnv cannot be sure they match: 1 company fields), 0 unchanged, 0 invalid.',
    );
  });

  it('-q applies to each NDJSON line', async () => {
    const path = file('q.csv', `email,city\n${FIXTURE_CONTACTS.ada.email},Lisbon\n`);
    const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan', '-q', 'changes[0].new || update'], {
      env: fx.env,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toBe('Lisbon\n1\n');
  });

  it('refuses what it cannot do: no --file, a report or summary on the stdout that holds the plan (exit 2)', async () => {
    const path = file('x.csv', 'email\na@example.com\n');
    const cases: Array<[string[], RegExp]> = [
      [['contacts', 'sync', '--plan'], /--file: required/],
      [['contacts', 'sync', '--file', path, '--plan', '--report', '-'], /--report -: not with --plan/],
      [['contacts', 'sync', '--file', path, '--plan', '--summary-json', '-'], /--summary-json -: not with --plan/],
    ];
    for (const [args, message] of cases) {
      const res = await cnvInProcess(args, { env: fx.env });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(message);
    }
  });
});

describe('contacts sync: how often the file is opened', () => {
  it('a regular file twice (checked whole, then read for its rows), whether a NUMBER column is scanned or not; stdin (read once) decides its numbers as they come', async () => {
    const opens = vi.spyOn(fs, 'open');
    try {
      for (const [name, text] of [
        ['opens-number.csv', `email,score\n${FIXTURE_CONTACTS.ada.email},1.5\nopens.new@example.com,2\n`],
        ['opens-text.csv', `email,city\n${FIXTURE_CONTACTS.ada.email},Paris\n`],
      ]) {
        const path = file(name, text);
        opens.mockClear();
        const res = await cnvInProcess(['contacts', 'sync', '--file', path, '--plan'], { env: fx.env });
        expect(res.exitCode, res.stderr).toBe(0);
        expect(opens.mock.calls.filter(([p]) => p === path).length, name).toBe(2);
      }
      opens.mockClear();
      const piped = await cnvInProcess(['contacts', 'sync', '--file', '-', '--plan'], {
        env: fx.env,
        input: `email,score\n${FIXTURE_CONTACTS.ada.email},1.5\n`,
      });
      expect(piped.exitCode, piped.stderr).toBe(0);
      expect(JSON.parse(piped.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'summary', update: 1 });
    } finally {
      opens.mockRestore();
    }
  });
});
