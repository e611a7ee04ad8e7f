// The hard values every reader of docs/exports.md "Reading the files" is checked on: made in a
// fresh emulator through cnv itself (fields created, one contact upserted), then exported by
// cnv to CSV (with --null-as '\N') and NDJSON. Used by check-readers.mjs.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/cnv.js');

/** Field key -> the exact text of the value (the CSV cell and the NDJSON value, as text). */
export const HARD_VALUES = {
  crlf: 'line one\r\nline two',
  lf: 'first\nsecond',
  cr: 'before\rafter',
  zeros: '00123',
  exponent: '1e5',
  na: 'NA',
  nullText: 'null',
  empty: '',
  backslashN: '\\N',
  formula: '=1+1',
  quoted: 'say "hi", then go',
  unicode: 'Zoë 🎉 東京',
  separator: 'left\u2028right',
  spaces: '  padded  ',
};

/** A NUMBER field past 2^53: its digits, as the API keeps them. */
export const BIG_NUMBER = '9007199254740993';

/**
 * Starts an emulator, writes the hard values, exports them: { csv, ndjson, dir, close }.
 * The CSV's one row holds every field as a column named by its label (= its key here).
 */
export async function makeHardFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-readers-'));
  const ready = join(dir, 'emulator.env');
  const emulator = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--seed', 'none', '--ready-file', ready], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 300 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 50));
  const vars = Object.fromEntries(
    readFileSync(ready, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );
  const env = {
    ...process.env,
    CNV_BASE_URL: vars.CNV_BASE_URL,
    CNV_API_KEY: vars.CNV_API_KEY,
    CNV_CONFIG_DIR: dir,
    CNV_RATE_SHARE: 'off',
  };
  const cnv = (...args) =>
    execFileSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const key of Object.keys(HARD_VALUES))
    cnv('fields', 'create', '--key', key, '--label', key, '--object-type', 'contact', '--data-type', 'string');
  cnv('fields', 'create', '--key', 'big', '--label', 'big', '--object-type', 'contact', '--data-type', 'number');
  const flags = Object.entries(HARD_VALUES).flatMap(([key, value]) => ['-f', `${key}=${value}`]);
  cnv('contacts', 'upsert', '--email', 'hard.values@example.com', ...flags, '-F', `big=${BIG_NUMBER}`);
  const csv = join(dir, 'contacts.csv');
  const ndjson = join(dir, 'contacts.ndjson');
  cnv('export', 'contacts', '--out', csv, '--no-state', '--null-as', '\\N');
  cnv('export', 'contacts', '--out', ndjson, '--no-state');
  return { csv, ndjson, dir, close: () => emulator.kill() };
}
