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
