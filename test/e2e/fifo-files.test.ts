import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Every file cnv keeps (export state, output file record, lock, field cache, config) is opened
// without blocking: a FIFO put in its place is refused (exit 8 naming it) or, for a lock or a
// cache, passed over; never waited on. Before, a synchronous open of the FIFO blocked the
// process itself: no SIGTERM, no SIGINT, kill -9 only (these runs then end at execa's timeout).
const fx = useEmulator();
const { dir } = batchFiles('cnv-fifo-files-');
const fifoAt = (path: string) => {
  rmSync(path, { force: true });
  execFileSync('mkfifo', [path]);
};
const run = (configDir: string, args: string[]) =>
  cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: configDir }, timeoutMs: 15_000 });

/** A config dir with one saved export state "k" of `out`; returns the paths cnv keeps for it. */
async function savedExport(out: string) {
  const configDir = tempConfigDir();
  const first = await run(configDir, ['export', 'contacts', '--out', out, '--state-key', 'k']);
  expect(first.exitCode, first.stderr).toBe(0);
  const exports = join(configDir, 'exports');
  const state = join(
    exports,
    readdirSync(exports).find((name) => name.endsWith('.json'))!,
  );
  const { dev, ino } = statSync(out);
  return { configDir, state, record: join(exports, 'files', `${dev}-${ino}.owner`) };
}

describe('a FIFO in place of a file cnv keeps (binary)', () => {
  it('the export state: the export and state show stop with exit 8 naming it; state list warns and lists the rest', async () => {
    const { configDir, state } = await savedExport(join(dir, 'state.ndjson'));
    fifoAt(state);
    const message = `error: file_system_error: the export state ${state} is a FIFO, not a regular file: remove it (cnv neither reads it nor waits on it, nor writes through it)`;
    for (const args of [
      ['export', 'contacts', '--out', join(dir, 'state.ndjson'), '--state-key', 'k'],
      ['export', 'state', 'show', 'k'],
    ]) {
      const res = await run(configDir, args);
      expect(res.stderr, args.join(' ')).toContain(message);
      expect(res.exitCode, args.join(' ')).toBe(8);
    }
    const list = await run(configDir, ['export', 'state', 'list']);
    expect(list.stderr).toContain(`warning: the export state ${state} is a FIFO`);
    expect(list.exitCode).toBe(0);
  });

  it("the output file's record: exit 8 naming it", async () => {
    const out = join(dir, 'record.ndjson');
    const { configDir, record } = await savedExport(out);
    fifoAt(record);
    const res = await run(configDir, ['export', 'contacts', '--out', out, '--state-key', 'k']);
    expect(res.stderr).toContain(
      `error: file_system_error: the output file record ${record} is a FIFO, not a regular file`,
    );
    expect(res.exitCode).toBe(8);
  });

  it("the state's lock: passed over as no lock at all (it names no holder), the run goes on", async () => {
    const { configDir, state } = await savedExport(join(dir, 'lock.ndjson'));
    fifoAt(`${state}.lock`);
    const res = await run(configDir, ['export', 'contacts', '--out', join(dir, 'lock.ndjson'), '--state-key', 'k']);
    expect(res.exitCode, res.stderr).toBe(0);
  });

  it('the config file: exit 8 naming it, for a command that reads it and for set-key', async () => {
    const configDir = tempConfigDir();
    const config = join(configDir, 'config.json');
    fifoAt(config);
    const message = `error: file_system_error: the config file ${config} is a FIFO, not a regular file`;
    const show = await cnv(['config', 'show'], { env: { CNV_CONFIG_DIR: configDir }, timeoutMs: 15_000 });
    expect(show.stderr).toContain(message);
    expect(show.exitCode).toBe(8);
    const setKey = await cnv(['config', 'set-key'], {
      env: { CNV_CONFIG_DIR: configDir },
      input: 'sk_live_abcdefgh12345678\n',
      timeoutMs: 15_000,
    });
    expect(setKey.stderr).toContain(message);
    expect(setKey.exitCode).toBe(8);
  });

  it('the field definitions cache: no cache (the definitions are fetched), the upsert goes on', async () => {
    const configDir = tempConfigDir();
    const upsert = ['contacts', 'upsert', '--email', 'ada@example.com', '--field', 'city=Berlin'];
    expect((await run(configDir, upsert)).exitCode).toBe(0);
    const cacheDir = join(configDir, 'cache');
    fifoAt(join(cacheDir, readdirSync(cacheDir)[0]));
    const res = await run(configDir, upsert);
    expect(res.exitCode, res.stderr).toBe(0);
  });

  it('a code cache file: passed over (the bundle compiles), the command runs, and a new cache is renamed over the FIFO (never written into it)', async () => {
    const cacheDir = join(tempConfigDir(), 'compile-cache');
    const env = { CNV_COMPILE_CACHE: cacheDir };
    // (--version is answered before the bundle loads: a command's help loads it.)
    expect((await cnv(['fields', '--help'], { env, timeoutMs: 15_000 })).exitCode).toBe(0);
    const files = readdirSync(cacheDir).filter((name) => name.endsWith('.v8'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) fifoAt(join(cacheDir, name));
    const res = await cnv(['fields', '--help'], { env, timeoutMs: 15_000 });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toContain('cnv fields <command>');
    expect(statSync(join(cacheDir, files[0])).isFile()).toBe(true);
  });

  it("another process's rate lease: passed over (not counted), the run goes on", async () => {
    const configDir = tempConfigDir();
    // A run of more than one request joins the account's rate share, which makes its folder.
    const list = ['export', 'contacts', '--no-state', '--limit', '500', '--no-progress'];
    expect((await run(configDir, list)).exitCode).toBe(0);
    const rateDir = join(configDir, 'rate');
    const accounts = readdirSync(rateDir);
    expect(accounts.length).toBe(1);
    // Named as a live lease of this very process would be.
    fifoAt(join(rateDir, accounts[0], `${process.pid}-deadbeef.lease`));
    const res = await run(configDir, list);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('other cnv process');
  });

  it('a state file in a shell TAB: the keys of the others are offered', async () => {
    const { configDir, state } = await savedExport(join(dir, 'tab.ndjson'));
    fifoAt(state.replace(/k\.([^.]+)\.json$/, 'other.$1.json'));
    const res = await cnv(['__complete', '--', 'export', 'state', 'show', ''], {
      env: { CNV_CONFIG_DIR: configDir },
      timeoutMs: 15_000,
    });
    expect(res.stdout.split('\n').filter(Boolean)).toEqual(['k']);
    expect(res.exitCode).toBe(0);
  });
});
