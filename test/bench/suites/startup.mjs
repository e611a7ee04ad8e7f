// Start-up: `cnv --version`, `cnv --help`, and a whole `cnv contacts get`, against `node -e 0`.
import { compare, timeCommand } from '../lib.mjs';
import { BIN, startEmulatorProcess } from '../emulator.mjs';

export async function run({ rounds: given }) {
  // A run is a tenth of a second: more rounds cost little and steady the medians.
  const rounds = Math.max(given, 15);
  const node = () => timeCommand(process.execPath, ['-e', '0']);
  const results = [];
  results.push({
    ...(await compare({ name: '`cnv --version` start-up', baseline: node, subject: () => timeCommand(process.execPath, [BIN, '--version']), rounds, warmup: 2 })),
    baselineName: '`node -e 0`',
    target: 1.5,
  });
  results.push({
    ...(await compare({ name: '`cnv --help` start-up', baseline: node, subject: () => timeCommand(process.execPath, [BIN, '--help']), rounds, warmup: 2 })),
    baselineName: '`node -e 0`',
    target: 1.5,
  });
  results.push({
    ...(await compare({
      name: '`cnv __complete -- contacts up` (one shell TAB)',
      baseline: node,
      subject: () => timeCommand(process.execPath, [BIN, '__complete', '--', 'contacts', 'up'], { env: { ...process.env, CNV_CONFIG_DIR: '/tmp/cnv-bench-config' } }),
      rounds,
      warmup: 2,
    })),
    baselineName: '`node -e 0`',
    target: 1.5,
  });
  const emu = await startEmulatorProcess(['--rate-limit', '0']);
  try {
    const env = { ...process.env, CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full, CNV_CONFIG_DIR: '/tmp/cnv-bench-config' };
    results.push({
      ...(await compare({
        name: '`cnv contacts get` against the emulator, whole process',
        baseline: node,
        subject: () => timeCommand(process.execPath, [BIN, 'contacts', 'get', '--email', 'ada@example.com'], { env }),
        rounds,
        warmup: 2,
      })),
      baselineName: '`node -e 0`',
      target: 2.5,
    });
  } finally {
    await emu.stop();
  }
  return results;
}
