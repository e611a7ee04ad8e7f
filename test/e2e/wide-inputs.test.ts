import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Column work is linear in the columns of the file and the lines of --map-file: every lookup is
// by key. Before, a 50,000-line map file was searched once per line (quadratic: more than
// 2 minutes of CPU here, deaf to SIGTERM), each of 20,000 columns searched the map and the
// header again, and the column table compared every pair of columns (20,000 columns: 14 s).
// Each run now takes about a second: the time limit below (25 s) only catches a hang.
const fx = useEmulator();
const { write } = batchFiles('cnv-wide-');
const COLUMNS = 20_000;
const header = ['email', ...Array.from({ length: COLUMNS }, (_, i) => `Column ${i}`)];
const wide = () =>
  write('wide.csv', `${header.join(',')}\n${['ada@example.com', ...Array(COLUMNS).fill('x')].join(',')}\n`);

describe('a CSV of 20,000 columns and a map file of 50,000 lines (binary)', () => {
  it('every column left out by the map file (50,000 lines, 20,000 of them naming its columns): resolved, dry run exit 0', async () => {
    const lines = [
      ...Array.from({ length: COLUMNS }, (_, i) => `Column ${i}=-`),
      ...Array.from({ length: 30_000 }, (_, i) => `Other ${i}=-`),
    ];
    const map = write('map.txt', `# ${lines.length} lines\n${lines.join('\n')}\n`);
    const res = await cnv(['contacts', 'upsert', '--file', wide(), '--map-file', map, '--dry-run', '--quiet'], {
      env: fx.env,
      timeoutMs: 25_000,
    });
    expect(res.exitCode, res.stderr.slice(-500)).toBe(0);
    expect(res.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('20,000 columns that name nothing: refused at once, exit 2, naming the first 20 and counting the rest', async () => {
    const res = await cnv(['contacts', 'upsert', '--file', wide(), '--dry-run'], { env: fx.env, timeoutMs: 25_000 });
    expect(res.stderr).toMatch(
      /error: unknown_column: .*wide\.csv: 20000 columns that name nothing POST \/v2\/contacts takes: "Column 0".*, and 19980 more/,
    );
    expect(res.exitCode).toBe(2);
  });

  it('--ignore-unknown-columns: the 20,000 columns left out, dry run exit 0', async () => {
    const res = await cnv(
      ['contacts', 'upsert', '--file', wide(), '--ignore-unknown-columns', '--dry-run', '--quiet'],
      { env: fx.env, timeoutMs: 25_000 },
    );
    expect(res.exitCode, res.stderr.slice(-500)).toBe(0);
  });
});

// Every input cap counts what memory holds. Before: a line of empty cells counted 0 bytes against
// the 10 MiB record cap (100 MB of commas: 1.6 GB of memory, exit 0); a header of more than about
// 125,000 columns with --ignore-unknown-columns overflowed the stack (Math.max(...columns), exit 1);
// a --resume-from-report of 100 MB of commas held 5.4 GB for 82 s. Sizes here are just over each cap.
describe('input caps count cells (binary)', () => {
  const CAP = 100_000;
  const wideHeader = (first: string[]) => [
    ...first,
    ...Array.from({ length: CAP + 1 - first.length }, (_, i) => `c${i}`),
  ];

  it('a CSV line of empty cells: refused at the 10 MiB record cap, exit 2, naming the file and line', async () => {
    const file = write('commas.csv', `email,name\nada@example.com,${','.repeat(700_000)}\n`);
    const res = await cnv(['contacts', 'upsert', '--file', file, '--dry-run', '--quiet'], { env: fx.env });
    expect(res.stderr).toMatch(
      /error: invalid_input: .*commas\.csv line 2: the record is larger than 10 MiB \(\d[\d,]* cells or more\)/,
    );
    expect(res.exitCode).toBe(2);
    expect(res.stdout).toBe('');
  });

  it.each([
    ['contacts upsert', ['contacts', 'upsert', '--dry-run'], ['email']],
    ['contacts sync', ['contacts', 'sync', '--plan'], ['email']],
    ['events track', ['events', 'track', '--dry-run'], ['event', 'email']],
  ])(
    '%s: a header of 100,001 columns with --ignore-unknown-columns is refused, exit 2, naming file and line',
    async (_, args, first) => {
      const header = wideHeader(first);
      const file = write('wide-header.csv', `${header.join(',')}\n${header.map(() => 'x').join(',')}\n`);
      const res = await cnv([...args, '--file', file, '--ignore-unknown-columns', '--quiet'], { env: fx.env });
      expect(res.stderr).toMatch(
        /wide-header\.csv line 1: the header has 100,001 columns, more than the 100,000 cnv reads/,
      );
      expect(res.stderr).not.toMatch(/internal|call stack/);
      expect(res.exitCode).toBe(2);
    },
  );

  it('NDJSON rows of more than 100,000 different keys: refused, exit 2', async () => {
    const row: Record<string, string> = { email: 'ada@example.com' };
    for (let i = 0; i < CAP; i++) row[`k${i}`] = 'x';
    const file = write('wide.ndjson', `${JSON.stringify(row)}\n`);
    const res = await cnv(['contacts', 'upsert', '--file', file, '--ignore-unknown-columns', '--dry-run', '--quiet'], {
      env: fx.env,
    });
    expect(res.stderr).toMatch(/wide\.ndjson: its rows hold more than 100,000 different keys/);
    expect(res.exitCode).toBe(2);
  });

  it('--resume-from-report: a record of 100,001 empty cells is no report, exit 2', async () => {
    const input = write('one.csv', 'email\nada@example.com\n');
    const report = write('commas-report.csv', `line,identifier,status,row,hash,job\n1,${','.repeat(CAP)}\n`);
    const res = await cnv(
      ['contacts', 'upsert', '--file', input, '--resume-from-report', report, '--dry-run', '--quiet'],
      {
        env: fx.env,
      },
    );
    expect(res.stderr).toMatch(
      /--resume-from-report .*commas-report\.csv: not a cnv report: a record holds more than 100,000 cells/,
    );
    expect(res.exitCode).toBe(2);
  });
});
