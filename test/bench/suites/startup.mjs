// Start-up: `cnv --version`, `cnv --help`, a shell TAB and a whole `cnv contacts get`, against
// `node -e 0`. The CLI bundle's code cache (src/runtime/load-bundle.ts) lives in a directory of
// this run, made by the warm-up rounds, as a user's first run makes it; one row runs without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, timeCommand } from '../lib.mjs';
import { BIN, startEmulatorProcess } from '../emulator.mjs';

export async function run({ rounds: given }) {
  // A run is a tenth of a second: more rounds cost little and steady the medians.
  const rounds = Math.max(given, 15);
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-startup-'));
  const base = { ...process.env, CNV_CONFIG_DIR: join(dir, 'config'), CNV_COMPILE_CACHE: join(dir, 'compile-cache') };
  const node = () => timeCommand(process.execPath, ['-e', '0']);
  const cnv =
    (args, env = base) =>
    () =>
      timeCommand(process.execPath, [BIN, ...args], { env });
  const row = async (name, subject, target, more = {}) => ({
    ...(await compare({ name, baseline: node, subject, rounds, warmup: 2 })),
    baselineName: '`node -e 0`',
    target,
    ...more,
  });
  const results = [];
  try {
    results.push(await row('`cnv --version` start-up', cnv(['--version']), 1.3));
    results.push(
      await row('`cnv --help` start-up (stdout a pipe)', cnv(['--help']), 1.3, {
        note: 'answered from dist/bundle/launch.json, written at build time by the program itself (test/e2e/launcher.test.ts: the same text).',
      }),
    );
    results.push(
      await row(
        '`cnv --no-color --help`: the help made by the program, as on a terminal',
        cnv(['--no-color', '--help']),
        1.5,
      ),
    );
    results.push(
      await row('`cnv __complete -- contacts up` (one shell TAB)', cnv(['__complete', '--', 'contacts', 'up']), 1.5),
    );
    const emu = await startEmulatorProcess(['--rate-limit', '0']);
    try {
      const env = { ...base, CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full };
      const get = ['contacts', 'get', '--email', 'ada@example.com'];
      results.push(
        await row('`cnv contacts get` against the emulator, whole process', cnv(get, env), 1.75, {
          note: 'with the code cache the warm-up rounds made (every run after the first of a command); the profile before and after is in "What was changed for speed".',
        }),
      );
      results.push(
        await row(
          '`cnv contacts get`, first run (no code cache: `CNV_COMPILE_CACHE=off`)',
          cnv(get, { ...env, CNV_COMPILE_CACHE: 'off' }),
          2.5,
        ),
      );
    } finally {
      await emu.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
