import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The machine contract as a script meets it, through the binary: a command that writes no data
// to stdout prints its result document there for --json and -q (with --quiet too); where stdout
// is the data, both are refused naming the flag to use; config remove as a script runs it.
const fx = useEmulator();
const { write, dir } = batchFiles('cnv-script-contract-');

describe('one JSON contract (binary)', () => {
  it('a file run: -q prints the queried value on stdout, with --quiet too, and a query that selects nothing prints null, never nothing', async () => {
    const file = write('people.csv', 'email,city\nsc-1@example.com,Oslo\nsc-2@example.com,Rome\n');
    const rows = await cnv(['contacts', 'upsert', '--file', file, '-q', 'rows', '--quiet'], { env: fx.env });
    expect(rows.exitCode).toBe(0);
    expect(rows.stdout).toBe('2\n');
    const doc = await cnv(['contacts', 'upsert', '--file', file, '--json', '--quiet'], { env: fx.env });
    expect(JSON.parse(doc.stdout)).toMatchObject({ status: 'complete', rows: 2, succeeded: 2, exitCode: 0 });
    const none = await cnv(['contacts', 'upsert', '--file', file, '-q', 'summary.rows'], { env: fx.env });
    expect(none.stdout).toBe('null\n');
    expect(none.stderr).toMatch(/summary/);
  });

  it('an export into --out: -q on its summary; to stdout (the rows) -q and --json are exit 2 naming --summary-json and --out', async () => {
    const out = join(dir, 'contacts.ndjson');
    const res = await cnv(['export', 'contacts', '--out', out, '--no-state', '-q', 'rows'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(Number(res.stdout)).toBe(readFileSync(out, 'utf8').trim().split('\n').length);
    for (const flag of [['-q', 'rows'], ['--json']]) {
      const refused = await cnv(['export', 'contacts', '--no-state', ...flag], { env: fx.env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^error: conflicting_options: .*stdout carries the exported rows/m);
      expect(refused.stderr).toMatch(/^hint: use --summary-json FILE, or --out FILE/m);
    }
  });

  it('config remove: the profile and its key go, the default moves, the document on stdout for --json', async () => {
    const configDir = tempConfigDir();
    const env = { CNV_CONFIG_DIR: configDir };
    for (const name of ['prod', 'staging']) {
      const set = await cnv(['--profile', name, 'config', 'set-key', '--base-url', fx.emulator.url], {
        env,
        input: `${fx.emulator.keys.full}\n`,
      });
      expect(set.exitCode, set.stderr).toBe(0);
    }
    expect((await cnv(['config', 'use', 'staging'], { env })).exitCode).toBe(0);
    const res = await cnv(['config', 'remove', 'staging', '--json', '--yes'], { env });
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('removed profile "staging" and its API key; "prod" is now the default\n');
    expect(JSON.parse(res.stdout)).toMatchObject({
      profile: 'staging',
      removed: true,
      default: 'prod',
      profiles: ['prod'],
    });
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).not.toContain('staging');
    const gone = await cnv(['config', 'remove', 'staging', '--yes'], { env });
    expect(gone.exitCode).toBe(2);
  });
});
