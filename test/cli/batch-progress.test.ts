import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES as AU, FIXTURE_CONTACTS as FX } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const files = batchFiles('cnv-progress-');
const fx = useEmulator();

describe('batch progress (in-process)', () => {
  const path = () => files.write('p.csv', `email\nghost@example.com\n${FX.ada.email}\n${FX.grace.email}\n`);

  it('on a terminal: a spinner with rows done, total, share, rate and failures, on stderr only', async () => {
    // The total is known once the last row is read, which (one in flight) is while the third request
    // waits: latency long enough for the spinner to draw a frame then, even on a loaded machine.
    await fx.faults({ latencyMs: 600 });
    const res = await cnvInProcess(
      [
        'audience',
        'add',
        AU.followUp.id,
        '--batch',
        path(),
        '--chunk-size',
        '1',
        '--concurrency',
        '1',
        '--report',
        files.reportPath(),
      ],
      { env: fx.env, stderrIsTTY: true },
    );
    await fx.clearFaults();
    expect(res.exitCode).toBe(6);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/\d+ \/ ~?3 rows \(\d+%\) · \d+ rows\/s · (about \d+s left · )?1 failed or invalid/);
    expect(res.stderr).toMatch(/3 rows: 2 succeeded \(added 2\), 1 failed/);
  });

  it('no spinner when stderr is not a terminal, or with --no-progress or --quiet', async () => {
    for (const [args, tty] of [
      [[], false],
      [['--no-progress'], true],
      [['--quiet'], true],
    ] as const) {
      const res = await cnvInProcess(['audience', 'add', AU.followUp.id, '--batch', path(), ...args], {
        env: fx.env,
        stderrIsTTY: tty,
      });
      expect(res.stderr).not.toMatch(/rows\/s ·/);
    }
  });
});
