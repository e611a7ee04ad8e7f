import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// A lock that names no process (pid 0 or -1: kill() reaches a whole group, so it always seemed
// alive) or that has no start time (a system without /proc) is judged by its refreshes, as
// docs/exports.md says: held while fresh, taken over once not refreshed for 10 s. A lock
// without `startedAt` is not one this version writes: refused, whatever its age.
const fx = useEmulator();
const { dir } = batchFiles('cnv-stale-locks-');
let outputs = 0;

/** A config dir with a saved export state "k", and the lock of that state holding `owner`. */
async function lockedBy(owner: Record<string, unknown>, ageMs: number) {
  const configDir = tempConfigDir();
  const out = join(dir, `out-${outputs++}.ndjson`);
  const args = ['export', 'contacts', '--out', out, '--state-key', 'k'];
  const first = await cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: configDir } });
  expect(first.exitCode, first.stderr).toBe(0);
  const exports = join(configDir, 'exports');
  const lock = `${join(
    exports,
    readdirSync(exports).find((name) => name.endsWith('.json'))!,
  )}.lock`;
  writeFileSync(lock, `${JSON.stringify(owner)}\n`);
  const at = new Date(Date.now() - ageMs);
  utimesSync(lock, at, at);
  return { lock, again: () => cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: configDir } }) };
}

describe('locks that name no process, or no start time (binary)', () => {
  const here = hostname();
  it.each([
    ['pid 0', { pid: 0, hostname: here, startedAt: '2026-01-01T00:00:00.000Z', procStart: 12345 }],
    ['pid -1', { pid: -1, hostname: here, startedAt: '2026-01-01T00:00:00.000Z', procStart: 12345 }],
    ['pid 0 without a start time', { pid: 0, hostname: here, startedAt: '2026-01-01T00:00:00.000Z' }],
    ['a live pid, without a start time', { pid: process.pid, hostname: here, startedAt: '2026-01-01T00:00:00.000Z' }],
  ])(
    '%s: held while refreshed (exit 7, no empty "since"), taken over once not refreshed for 10 s',
    async (_name, owner) => {
      const fresh = await lockedBy(owner, 0);
      const held = await fresh.again();
      expect(held.stderr).toContain(
        `error: locked: another run holds the lock of export state "k" (pid ${owner.pid} on ${here}`,
      );
      expect(held.stderr).not.toMatch(/since \)/);
      expect(held.exitCode).toBe(7);

      const stale = await lockedBy(owner, 11_000);
      const res = await stale.again();
      expect(res.exitCode, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/^export contacts complete: /m);
    },
  );

  it('a lock without startedAt (not one this version writes) is refused, fresh or old: exit 2 naming it and how to go on', async () => {
    for (const age of [0, 11_000]) {
      const { lock, again } = await lockedBy({ pid: 0, hostname: here }, age);
      const res = await again();
      expect(res.exitCode, res.stderr).toBe(2);
      expect(res.stderr).toContain(
        `error: lock_unrecognised: ${lock} is not a lock this version of cnv writes: whether a run still holds it cannot be told\n`,
      );
      expect(res.stderr).toContain(`hint: if no cnv run uses it, remove it (rm -r ${lock}) and run again\n`);
    }
  });
});
