import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../../helpers/cli.js';
import { useEmulator } from '../../../helpers/emulator.js';
import { exportState, statePath } from '../../../helpers/exports.js';

const fx = useEmulator();
const dir = tempConfigDir();

describe('identifiers, state reset, profiles', () => {
  it('export state reset: an unknown key is exit 5; off a terminal it deletes nothing without --yes (exit 2), and deletes with it', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnvInProcess(['export', 'state', 'reset', 'nokey'], { env })).exitCode).toBe(5);
    await cnvInProcess(['export', 'contacts', '--state-key', 'k1', '--max-rows', '1', '--out', join(dir, 'k1.csv')], {
      env,
    });
    const refused = await cnvInProcess(['export', 'state', 'reset', 'k1'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      'error: confirmation_required: export state reset k1: --yes is required off a terminal (nothing was deleted)\nhint: pass --yes to delete without a question (a script, cron or CI job)\n',
    );
    expect((await cnvInProcess(['export', 'state', 'show', 'k1'], { env })).exitCode).toBe(0);
    const reset = await cnvInProcess(['export', 'state', 'reset', 'k1', '--json', '--yes'], { env });
    expect(reset.exitCode).toBe(0);
    expect(JSON.parse(reset.stdout)).toEqual({ key: 'k1', removed: true });
    expect((await cnvInProcess(['export', 'state', 'reset', 'k1'], { env })).exitCode).toBe(5);
  });

  it('a damaged state: the error names reset and --full, and both work (reset --yes, --full)', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(dir, 'damaged.ndjson');
    for (const key of ['d1', 'd2']) {
      expect(
        (
          await cnvInProcess(
            [
              'export',
              'contacts',
              '--state-key',
              key,
              '--max-rows',
              '1',
              '--out',
              out.replace('.ndjson', `-${key}.ndjson`),
            ],
            { env },
          )
        ).exitCode,
      ).toBe(0);
      writeFileSync(
        await statePath(env.CNV_CONFIG_DIR, key),
        '{"state": {"key": "' + key + '", "kind": "contacts", "current": {"cursor": ',
      );
    }
    const refused = await cnvInProcess(
      ['export', 'contacts', '--state-key', 'd1', '--out', out.replace('.ndjson', '-d1.ndjson')],
      { env },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^error: state_corrupt: the export state file .* cannot be used/m);
    expect(refused.stderr).toMatch(/^hint: .*`cnv export state reset d1` removes it, or run the export with --full/m);
    for (const flags of [['--yes'], []]) {
      const reset = await cnvInProcess(['export', 'state', 'reset', 'd1', '--json', ...flags], { env });
      expect(reset.exitCode, reset.stderr).toBe(flags.length ? 0 : 5);
      if (flags.length) expect(JSON.parse(reset.stdout)).toEqual({ key: 'd1', removed: true });
    }
    const full = await cnvInProcess(
      [
        'export',
        'contacts',
        '--state-key',
        'd2',
        '--full',
        '--max-rows',
        '1',
        '--out',
        out.replace('.ndjson', '-d2.ndjson'),
      ],
      { env },
    );
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stderr).toMatch(
      /^warning: the export state file .* cannot be used: .*; --full starts over and replaces it$/m,
    );
    expect((await exportState(env.CNV_CONFIG_DIR, 'd2'))?.current.rows).toBe(1);
  });
});
