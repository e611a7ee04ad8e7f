import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator({ rateLimit: 200 });

const ROWS = 250;

function inputs(dir: string, tag: string, rows: number): string[] {
  return [0, 1, 2, 3].map((p) => {
    const file = join(dir, `${tag}-${p}.csv`);
    const lines = ['email'];
    for (let i = 0; i < rows; i++) lines.push(`share.${tag}.${p}.${i}@example.com`);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  });
}

/** Four `contacts upsert --file` processes at once, all with the same key and config dir. */
async function fourAtOnce(tag: string, env: Record<string, string>, rows = ROWS) {
  const configDir = tempConfigDir();
  await fx.resetStats();
  const runs = await Promise.all(
    inputs(configDir, tag, rows).map((file) =>
      cnv(['contacts', 'upsert', '--file', file, '--json', '--no-progress'], {
        env: { ...fx.env, CNV_CONFIG_DIR: configDir, ...env },
      }),
    ),
  );
  return { runs, stats: await fx.stats() };
}

describe('one rate limit for every cnv process of an account', () => {
  it('four processes at once stay under the limit together: no 429, every row upserted', async () => {
    const { runs, stats } = await fourAtOnce('shared', {});
    for (const r of runs) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ succeeded: ROWS });
    }
    expect(stats.rateLimited).toBe(0);
    expect(stats.total).toBe(4 * ROWS);
    // A run slowed by the others says so, once.
    const told = runs.filter((r) =>
      /warning: \d other cnv process(es)? of this machine sends? with this account: this run shares its rate, at most \d+ requests\/s \(leases in .*\/rate\/[0-9a-f]{24}; CNV_RATE_SHARE=off stops sharing\)/.test(
        r.stderr,
      ),
    );
    expect(told.length).toBeGreaterThan(0);
    for (const r of runs) expect(r.stderr.match(/shares its rate/g)?.length ?? 0).toBeLessThanOrEqual(1);
  }, 60_000);

  it('a one-request command takes no lease (nothing to share, nothing to pay for)', async () => {
    const configDir = tempConfigDir();
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, CNV_CONFIG_DIR: configDir },
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(existsSync(join(configDir, 'rate'))).toBe(false);
  });

  it('without sharing (CNV_RATE_SHARE=off) the same four runs collect 429s', async () => {
    // Runs of 2.5 s each at the full rate: they overlap even where a loaded machine starts them a second apart.
    const { runs, stats } = await fourAtOnce('alone', { CNV_RATE_SHARE: 'off' }, 500);
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    for (const r of runs) expect(r.stderr).not.toMatch(/shares its rate/);
    expect(stats.rateLimited).toBeGreaterThan(0);
  }, 60_000);
});
