import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cnv, cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// bin/cnv.js answers --version and --help (to a pipe) from the build, and compiles the CLI bundle
// with a V8 code cache kept per command (src/runtime/load-bundle.ts). Neither may change what a
// command prints or does.

const fx = useEmulator();
const ROOT = resolve(import.meta.dirname, '../..');
const temp = () => mkdtempSync(join(tmpdir(), 'cnv-launcher-'));
const get = ['contacts', 'get', '--email', 'ada@example.com'];
/** The cache files in a directory, by name (without the bundle hash and Node.js version before the command). */
const caches = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).map((f) => f.replace(/^[0-9a-f]{16}-v[\d.]+-\w+-/, '')) : [];

describe('answers known at build time', () => {
  it('--version and -V print what the program prints', async () => {
    const program = await cnvInProcess(['--version']);
    for (const flag of ['--version', '-V']) {
      const res = await cnv([flag]);
      expect([res.exitCode, res.stdout, res.stderr], flag).toEqual([0, program.stdout, '']);
    }
    expect(program.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('--help, -h and `help` to a pipe print what the program prints, which other words still make it print', async () => {
    const program = await cnvInProcess(['--help']);
    expect(program.stdout).toMatch(
      /^Command-line client for the Marketing Automation Service API v2[^]*\nUSAGE\n {2}cnv /,
    );
    for (const args of [['--help'], ['-h'], ['help'], ['--no-color', '--help']]) {
      const res = await cnv(args);
      expect([res.exitCode, res.stdout, res.stderr], args.join(' ')).toEqual([0, program.stdout, '']);
    }
  });

  it('a reader that goes away before the help is written: exit 141, no error', async () => {
    const res = await execa('bash', ['-c', `node ${BIN} --help | head -c 1 > /dev/null; exit \${PIPESTATUS[0]}`], {
      reject: false,
    });
    expect(res.stderr).toBe('');
    expect([0, 141]).toContain(res.exitCode);
  });
});

describe('the code cache of the CLI bundle', () => {
  it('the first run of a command writes its cache (0600, in a 0700 directory); the next uses it and leaves it as it is', async () => {
    const dir = join(temp(), 'cc');
    const env = { ...fx.env, CNV_COMPILE_CACHE: dir };
    const first = await cnv(get, { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(caches(dir)).toEqual(['contacts.get.v8']);
    const [file] = readdirSync(dir);
    if (process.platform !== 'win32') {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
    const bytes = readFileSync(join(dir, file));
    const second = await cnv(get, { env });
    expect([second.exitCode, second.stdout, second.stderr]).toEqual([0, first.stdout, first.stderr]);
    expect(readFileSync(join(dir, file)).equals(bytes)).toBe(true);
    // Another command has a cache of its own; a run that failed on its usage writes none.
    expect((await cnv(['config', 'show'], { env })).exitCode).toBe(0);
    expect((await cnv(['contacts', 'get', '--bogus'], { env })).exitCode).toBe(2);
    expect(caches(dir).sort()).toEqual(['config.show.v8', 'contacts.get.v8']);
  });

  it('a damaged cache is refused by V8: the run is the same, and the cache is made again', async () => {
    const dir = join(temp(), 'cc');
    const env = { ...fx.env, CNV_COMPILE_CACHE: dir };
    const clean = await cnv(get, { env });
    const [file] = readdirSync(dir);
    const size = statSync(join(dir, file)).size;
    for (const damage of [
      Buffer.alloc(size, 0x5a),
      Buffer.from('short'),
      readFileSync(join(dir, file)).subarray(0, size >> 1),
    ]) {
      writeFileSync(join(dir, file), damage);
      const res = await cnv(get, { env });
      expect([res.exitCode, res.stdout, res.stderr]).toEqual([0, clean.stdout, clean.stderr]);
      const remade = readFileSync(join(dir, file));
      expect(remade.equals(damage)).toBe(false);
      expect(remade.length).toBeGreaterThan(size / 2);
    }
  });

  it('a directory others may write into is neither read nor written', async () => {
    if (process.platform === 'win32') return;
    const dir = join(temp(), 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const res = await cnv(get, { env: { ...fx.env, CNV_COMPILE_CACHE: dir } });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('CNV_COMPILE_CACHE=off writes nothing; by default the cache goes under $XDG_CACHE_HOME/cnv (or ~/.cache/cnv)', async () => {
    const home = temp();
    const off = await cnv(get, { env: { ...fx.env, HOME: home, XDG_CACHE_HOME: undefined, CNV_COMPILE_CACHE: 'off' } });
    expect(off.exitCode, off.stderr).toBe(0);
    expect(readdirSync(home)).toEqual([]);
    expect((await cnv(get, { env: { ...fx.env, HOME: home, XDG_CACHE_HOME: undefined } })).exitCode).toBe(0);
    expect(caches(join(home, '.cache', 'cnv', 'compile-cache'))).toEqual(['contacts.get.v8']);
    const xdg = temp();
    expect((await cnv(get, { env: { ...fx.env, HOME: home, XDG_CACHE_HOME: xdg } })).exitCode).toBe(0);
    expect(caches(join(xdg, 'cnv', 'compile-cache'))).toEqual(['contacts.get.v8']);
  });

  it('a bundle edited in place (same length) runs as edited: its caches are keyed by its bytes (before: the old code ran on)', async () => {
    // The package as installed, in a folder of its own: its bundle is edited as a patch tool would.
    const pkg = temp();
    mkdirSync(join(pkg, 'bin'));
    for (const file of ['cnv.js', 'package.json']) copyFileSync(join(ROOT, 'bin', file), join(pkg, 'bin', file));
    cpSync(join(ROOT, 'dist', 'bundle'), join(pkg, 'dist', 'bundle'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    const env = cleanEnv({ CNV_COMPILE_CACHE: join(pkg, 'cc'), CNV_CONFIG_DIR: temp() });
    const help = async () =>
      (
        await execa('node', [join(pkg, 'bin', 'cnv.js'), 'fields', '--help'], { env, extendEnv: false, reject: false })
      ).stdout.split('\n')[0];
    expect(await help()).toBe('Field definitions and relationship fields');
    expect(await help()).toBe('Field definitions and relationship fields'); // from the cache
    const bundle = join(pkg, 'dist', 'bundle', 'cnv.cjs');
    const text = readFileSync(bundle, 'latin1');
    const fd = openSync(bundle, 'r+');
    writeSync(
      fd,
      text.replace('"Field definitions and relationship fields"', '"FIELD DEFINITIONS and relationship fields"'),
      0,
      'latin1',
    );
    closeSync(fd);
    expect(await help()).toBe('FIELD DEFINITIONS and relationship fields');
  });

  it('a relative CNV_COMPILE_CACHE is refused: no cache, and no folder made where cnv runs (under cron: /)', async () => {
    const cwd = temp();
    const res = await execa('node', [BIN, ...get], {
      cwd,
      env: cleanEnv({ ...fx.env, CNV_COMPILE_CACHE: 'cnv-cache' }),
      extendEnv: false,
      reject: false,
    });
    expect(res.exitCode, String(res.stderr)).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('an export keeps what it compiled before it sets V8 flags for its heap: the next run takes that cache as it is', async () => {
    const dir = join(temp(), 'cc');
    const env = { ...fx.env, CNV_COMPILE_CACHE: dir };
    const args = ['export', 'contacts', '--no-state', '-o', 'ndjson', '--limit', '500'];
    const first = await cnv(args, { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(caches(dir)).toEqual(['export.contacts.v8']);
    const [file] = readdirSync(dir);
    const bytes = readFileSync(join(dir, file));
    const second = await cnv(args, { env });
    expect([second.exitCode, second.stdout]).toEqual([0, first.stdout]);
    expect(readFileSync(join(dir, file)).equals(bytes)).toBe(true);
  });
});
