import { execa } from 'execa';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const ROOT = resolve(import.meta.dirname, '../..');
const fx = useEmulator();

describe('npm pack', () => {
  it("yields a package that installs globally and runs --version, doctor, emulator, tap-cnv and target-cnv (Meltano's executables)", async () => {
    const work = mkdtempSync(join(tmpdir(), 'cnv-pack-'));
    const prefix = join(work, 'prefix');
    await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)],
      { cwd: work },
    );
    const cnvBin = join(prefix, 'bin', 'cnv');
    const env = {
      ...process.env,
      CNV_CONFIG_DIR: join(work, 'config'),
      CNV_BASE_URL: fx.emulator.url,
      CNV_API_KEY: fx.emulator.keys.full,
    };

    const version = await execa(cnvBin, ['--version'], { env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const doctor = await execa(cnvBin, ['doctor'], { env, reject: false });
    expect(doctor.exitCode).toBe(0);

    const emulator = execa(cnvBin, ['emulator', '--port', '0', '--json'], { env, reject: false });
    const line = await new Promise<string>((res) => emulator.stdout!.once('data', (c) => res(String(c))));
    expect(JSON.parse(line).url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    emulator.kill('SIGTERM');
    expect((await emulator).exitCode).toBe(0);

    // target-cnv: the same bundle as `cnv target`, through the link npm made.
    const targetAbout = await execa(join(prefix, 'bin', 'target-cnv'), ['--about', '--format', 'markdown'], { env });
    expect(targetAbout.stdout).toMatch(/^# `target-cnv`\n/);
    expect(targetAbout.stdout).toContain('| api_key | False | None |');

    // tap-cnv: the same bundle as `cnv tap`, through the link npm made.
    const tapBin = join(prefix, 'bin', 'tap-cnv');
    const about = await execa(tapBin, ['--about', '--format', 'json'], { env });
    expect(JSON.parse(about.stdout)).toMatchObject({
      name: 'tap-cnv',
      capabilities: ['catalog', 'discover', 'state', 'about', 'stream-maps', 'flattening'],
    });
    const config = join(work, 'tap-config.json');
    writeFileSync(config, JSON.stringify({ base_url: fx.emulator.url, api_key: fx.emulator.keys.full }));
    const discovered = await execa(tapBin, ['--config', config, '--discover'], {
      env: { ...env, CNV_API_KEY: undefined, CNV_BASE_URL: undefined },
    });
    expect(JSON.parse(discovered.stdout).streams.map((s: { stream: string }) => s.stream)).toEqual([
      'contacts',
      'custom_events',
      'email_events',
      'fields',
      'campaigns',
    ]);
  }, 180_000);
});
