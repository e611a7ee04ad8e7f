import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { CRASH_STEPS } from '../../src/exporter/crash-points.js';
import { cnv } from '../helpers/cli.js';
import { exportState, outDir, statePath, killUntilDone, resumableExports, sha256 } from '../helpers/exports.js';

// Exactly once into a file, whatever kills the run: every scenario resumes and must end with a
// file equal, byte for byte, to one clean export.
const { fx, reference, args, spawn } = resumableExports();

async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('SIGKILL injected at each step of the commit protocol (CNV_TEST_CRASH_AT)', () => {
  const cases: Array<[string, number]> = [
    ...CRASH_STEPS.map((s) => [s, 3] as [string, number]),
    ['mid-write', 1],
    ['before-state', 1],
  ];

  it.each(cases)('%s on page %i: nothing lost, nothing repeated after the resume', async (step, page) => {
    const out = join(outDir(), 'contacts.csv');
    const key = `crash-${step}-${page}`;
    const crashed = await cnv(args(out, key), { env: { ...fx.env, CNV_TEST_CRASH_AT: `${step}:${page}` } });
    expect(crashed.exitCode, crashed.stderr).toBe(-1); // killed by its own SIGKILL
    const committedPages = step === 'after-state' ? page : page - 1;
    const state = await exportState(fx.configDir, key);
    expect(state?.current.pages ?? 0).toBe(committedPages);
    const committed = state?.current.output.kind === 'file' ? state.current.output.bytes : 0;
    const size = existsSync(out) ? statSync(out).size : 0;
    if (['mid-write', 'after-fsync', 'before-state'].includes(step)) expect(size).toBeGreaterThan(committed);
    else expect(size).toBe(committed);

    const resumed = await cnv(args(out, key), { env: fx.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    if (size > committed) expect(resumed.stderr).toContain(`cut ${size - committed} uncommitted bytes first`);
    const file = readFileSync(out);
    expect(file.toString('utf8')).toBe(reference());
    const run = (await exportState(fx.configDir, key))!.runs.at(-1)!;
    expect(run).toMatchObject({ status: 'complete', startOffset: committed, bytes: file.length - committed });
    expect(run.sha256).toBe(sha256(file.subarray(committed)));
  });
});

describe('kill -9 from outside, at random moments', () => {
  it('8 seeds: kill, resume until done; the file equals one clean export row for row', async () => {
    // ~21 pages of 100, each at least 30 ms: a whole run takes longer than the first kill's delay,
    // and later attempts wait longer, so every seed is killed at least once and then finishes.
    await fx.faults({ latencyMs: 30 });
    let kills = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const random = mulberry32(seed);
      const out = join(outDir(), `random-${seed}.csv`);
      const { finished, kills: killed } = await killUntilDone(() => spawn(args(out, `random-${seed}`, '100')), random, {
        attempts: 15,
        base: 150,
        spread: 600,
        step: 400,
      });
      kills += killed;
      expect(finished, `seed ${seed}`).toBe(true);
      expect(readFileSync(out, 'utf8'), `seed ${seed}`).toBe(reference());
    }
    expect(kills).toBeGreaterThanOrEqual(8);
  }, 90_000);
});

describe('one run per state key', () => {
  it('a second run exits 7 at once naming the holder; after kill -9 the next run takes over and finishes', async () => {
    await fx.faults({ latencyMs: 150 });
    const out = join(outDir(), 'locked.csv');
    const holder = spawn(args(out, 'locked', '100'));
    const lock = `${await statePath(fx.configDir, 'locked')}.lock`;
    await waitFor(async () => ((await exportState(fx.configDir, 'locked'))?.current.pages ?? 0) >= 1);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: holder.pid }); // the lock file names its owner

    const started = Date.now();
    const second = await cnv(args(out, 'locked', '100'), { env: fx.env });
    expect(second.exitCode).toBe(7);
    expect(second.stderr).toMatch(
      new RegExp(`error: locked: another run holds the lock of export state "locked" \\(pid ${holder.pid} on `),
    );
    expect(Date.now() - started).toBeLessThan(5000);

    holder.kill('SIGKILL');
    await holder;
    expect(existsSync(lock)).toBe(true); // left behind by the kill
    await fx.clearFaults();
    const next = await cnv(args(out, 'locked', '100'), { env: fx.env });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(reference());
    expect(existsSync(lock)).toBe(false);
  });

  it('SIGTERM abandons the page in flight, keeps what is committed, exits 143; the resume completes the file', async () => {
    await fx.faults({ latencyMs: 150 });
    const out = join(outDir(), 'term.csv');
    const child = spawn(args(out, 'term', '100'));
    await waitFor(async () => ((await exportState(fx.configDir, 'term'))?.current.pages ?? 0) >= 2);
    child.kill('SIGTERM');
    const res = await child;
    expect(res.exitCode).toBe(143);
    expect(String(res.stderr)).toMatch(/export contacts interrupted: .*keeps what was committed before/);
    const state = (await exportState(fx.configDir, 'term'))!;
    expect(state.runs.at(-1)?.status).toBe('interrupted');
    expect(statSync(out).size).toBe(state.current.output.kind === 'file' ? state.current.output.bytes : -1);
    await fx.clearFaults();
    expect((await cnv(args(out, 'term', '100'), { env: fx.env })).exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(reference());
  });
});
