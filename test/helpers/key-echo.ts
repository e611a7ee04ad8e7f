import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from './cli.js';

/**
 * What a test of the key echoed by a server needs for one spelling: a fresh config directory,
 * the environment that points cnv at `url` with `key`, a two-row people.csv, and the paths of
 * the report, summary and export file the runs write (all inside the directory, so that every
 * file cnv stores is found by `storedFiles`).
 */
export function keyEchoRun(url: string, key: string) {
  const dir = tempConfigDir();
  const input = join(dir, 'people.csv');
  writeFileSync(input, 'email\na@example.com\nb@example.com\n');
  return {
    dir,
    env: { CNV_CONFIG_DIR: dir, CNV_BASE_URL: url, CNV_API_KEY: key, CNV_RATE_SHARE: 'off' },
    input,
    report: join(dir, 'report.csv'),
    summary: join(dir, 'summary.json'),
    out: join(dir, 'contacts.ndjson'),
  };
}

/** Every regular file below `dir`, as paths relative to it. */
export function storedFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile());
}
