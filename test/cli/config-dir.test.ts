import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

describe('a config directory that cannot be used is an error naming it, never "a bug in cnv"', () => {
  it('CNV_CONFIG_DIR naming a file: exit 2, config_dir_unusable, naming the variable and the path', async () => {
    const file = join(tempConfigDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    for (const args of [
      ['contacts', 'get', '--email', 'ada@example.com'],
      ['export', 'state', 'list'],
      ['export', 'contacts', '--state-key', 'k'],
      ['config', 'set-key'],
    ]) {
      const res = await cnvInProcess(args, {
        env: { CNV_CONFIG_DIR: file, CNV_API_KEY: fx.emulator.keys.full, CNV_BASE_URL: fx.emulator.url },
        input: fx.emulator.keys.full,
      });
      expect(res.exitCode, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(
        new RegExp(
          `^error: config_dir_unusable: the config directory ${file} \\(from CNV_CONFIG_DIR\\) is not a directory: a file stands at that path or above it \\(ENOTDIR on ${file}/`,
          'm',
        ),
      );
      expect(res.stderr).toContain('hint: point CNV_CONFIG_DIR at a directory cnv may write to');
    }
  });

  it('a config directory that cannot be made (a read-only place): state list works, a stateful export is exit 8 naming it, a one-off export needs none', async () => {
    // mkdir under /sys is refused (EPERM or EROFS) even for root.
    const dir = '/sys/cnv-config-test';
    const env = { CNV_CONFIG_DIR: dir, CNV_API_KEY: fx.emulator.keys.full, CNV_BASE_URL: fx.emulator.url };
    const list = await cnvInProcess(['export', 'state', 'list', '--json'], { env });
    expect([list.exitCode, list.stdout.trim(), list.stderr]).toEqual([0, '[]', '']);
    const stateful = await cnvInProcess(['export', 'contacts', '--state-key', 'k', '--max-pages', '1'], { env });
    expect(stateful.exitCode, stateful.stderr).toBe(8);
    expect(stateful.stderr).toMatch(
      /^error: file_system_error: cannot use \/sys\/cnv-config-test\/exports, in the config directory \/sys\/cnv-config-test \(from CNV_CONFIG_DIR\): (operation not permitted|the file system is read-only|permission denied)/m,
    );
    const out = join(tempConfigDir(), 'one-off.ndjson');
    const oneOff = await cnvInProcess(['export', 'contacts', '--no-state', '--out', out, '--max-pages', '1'], { env });
    expect(oneOff.exitCode, oneOff.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').length).toBeGreaterThan(0);
  });

  it('a config file that cannot be written (a directory that exists, read-only): config set-url is exit 8 naming the file, not a bug', async () => {
    // /sys exists and refuses new files (EACCES or EROFS), even to root.
    const res = await cnvInProcess(['config', 'set-url', 'http://127.0.0.1:9'], { env: { CNV_CONFIG_DIR: '/sys' } });
    expect(res.exitCode, res.stderr).toBe(8);
    expect(res.stderr).toMatch(
      /^error: file_system_error: cannot use \/sys\/config\.json, in the config directory \/sys \(from CNV_CONFIG_DIR\): /m,
    );
  });
});
