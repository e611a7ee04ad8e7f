import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { exportState, ndjsonRows, outDir } from '../helpers/exports.js';

// The output file is the one the state committed to, or nothing is written; one-off exports
// never destroy the file they replace.
let clean: string;
const fx = useEmulator({ rateLimit: 0 });
// One clean export of what the emulator holds now (tests add contacts).
beforeEach(async () => {
  await fx.clearFaults();
  clean = (await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'ndjson'], { env: fx.env })).stdout;
});

const exportCnv = (args: string[]) => cnvInProcess(['export', 'contacts', ...args], { env: fx.env });
const writeContact = (email: string) =>
  fetch(`${fx.emulator.url}/v2/contacts`, {
    method: 'POST',
    headers: { 'x-api-key': fx.emulator.keys.full, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

describe('the state proves its file before cutting or appending', () => {
  it('a rotated file (moved away, a new one written at the path) is refused with exit 2; neither file is touched', async () => {
    const dir = outDir();
    const out = join(dir, 'rot.ndjson');
    expect((await exportCnv(['--out', out, '--state-key', 'rot'])).exitCode).toBe(0);
    renameSync(out, `${out}.1`);
    const theirs = 'another writer\n'.repeat(5000); // longer than what was committed: today it would be cut
    writeFileSync(out, theirs);
    await writeContact('rotated.later@example.com');
    const res = await exportCnv(['--out', out, '--state-key', 'rot']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /error: file_replaced: --out .*rot\.ndjson is not the file this export state committed \d+ bytes to \(device:inode was \d+:\d+, now \d+:\d+/,
    );
    expect(res.stderr).toMatch(/hint: put the file this export wrote back .*--full.*another --out/);
    expect(readFileSync(out, 'utf8')).toBe(theirs);
    const committed = readFileSync(`${out}.1`, 'utf8');
    // Put back, it continues.
    renameSync(`${out}.1`, out);
    const back = await exportCnv(['--out', out, '--state-key', 'rot']);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').startsWith(committed)).toBe(true);
    expect(ndjsonRows(out).at(-1)?.email).toBe('rotated.later@example.com');
  });

  it('a re-pointed symlink is refused; the file it now points to is not cut', async () => {
    const dir = outDir();
    const a = join(dir, 'a.ndjson');
    const b = join(dir, 'b.ndjson');
    const link = join(dir, 'current.ndjson');
    symlinkSync(a, link);
    expect((await exportCnv(['--out', link, '--state-key', 'link'])).exitCode).toBe(0);
    writeFileSync(b, `${clean}and more of b\n`);
    unlinkSync(link);
    symlinkSync(b, link);
    const res = await exportCnv(['--out', link, '--state-key', 'link']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/file_replaced/);
    expect(readFileSync(b, 'utf8')).toBe(`${clean}and more of b\n`);
  });

  it('a file rewritten in place (same inode, other bytes before the committed length) is refused', async () => {
    const out = join(outDir(), 'edited.ndjson');
    expect((await exportCnv(['--out', out, '--state-key', 'edited'])).exitCode).toBe(0);
    const edited =
      clean.replace(/"email":"[^"]*"(?![\s\S]*"email")/, '"email":"edited@example.com"') + 'appended by hand\n';
    writeFileSync(out, edited); // in place: same inode
    const res = await exportCnv(['--out', out, '--state-key', 'edited']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /error: file_changed: --out .*edited\.ndjson: the \d+ bytes before the committed length \(\d+\) are not the ones this export state wrote/,
    );
    expect(readFileSync(out, 'utf8')).toBe(edited);
  });

  it('a file another state key took over (--full) is refused to the first key, even with the same bytes; nothing is cut', async () => {
    const out = join(outDir(), 'taken.ndjson');
    expect((await exportCnv(['--out', out, '--state-key', 'first'])).exitCode).toBe(0);
    expect((await exportCnv(['--out', out, '--state-key', 'second', '--full'])).exitCode).toBe(0);
    await writeContact('taken.later@example.com');
    expect((await exportCnv(['--out', out, '--state-key', 'second'])).exitCode).toBe(0);
    const before = readFileSync(out, 'utf8');
    const res = await exportCnv(['--out', out, '--state-key', 'first']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/error: file_taken: --out .*taken\.ndjson is written by export state "second" now/);
    expect(readFileSync(out, 'utf8')).toBe(before);
  });

  it('two state keys (or a one-off export) on one file at once: the second exits 7 naming the holder; the file is one clean export', async () => {
    const out = join(outDir(), 'shared.ndjson');
    await fx.faults({ latencyMs: 150 });
    const first = execa('node', [BIN, 'export', 'contacts', '--out', out, '--state-key', 'one', '--limit', '200'], {
      reject: false,
      env: { ...fx.env },
    });
    // Wait until the first run holds the file (it exists once opened and locked).
    for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 25));
    const [second, oneOff] = await Promise.all([
      exportCnv(['--out', out, '--state-key', 'two', '--limit', '200']),
      exportCnv(['--out', out, '--no-state']),
    ]);
    const done = await first;
    await fx.clearFaults();
    expect(done.exitCode, String(done.stderr)).toBe(0);
    expect(second.exitCode, second.stderr).toBe(7);
    expect(second.stderr).toMatch(
      /error: locked: another run holds the lock of output file .*shared\.ndjson \(pid \d+ on /,
    );
    // A one-off export would replace the file under it: refused the same way.
    expect([oneOff.exitCode, oneOff.stderr]).toEqual([
      7,
      expect.stringMatching(/another run holds the lock of output file/),
    ]);
    expect(readFileSync(out, 'utf8')).toBe(clean);
    expect(await exportState(fx.configDir, 'two')).toBeUndefined();
  });
});

describe('--no-state --out FILE: written beside FILE, renamed over it on success', () => {
  it('a failure leaves the previous file intact and no temporary file; success replaces it, keeping its permissions', async () => {
    const dir = outDir();
    const out = join(dir, 'one-off.ndjson');
    writeFileSync(out, 'yesterday\n');
    chmodSync(out, 0o640);
    await fx.faults({ status5xxNext: [{ status: 503, count: 100 }] });
    const failed = await exportCnv(['--no-state', '--out', out, '--max-retries', '0']);
    await fx.clearFaults();
    expect(failed.exitCode).toBe(7);
    expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
    expect(readdirSync(dir)).toEqual(['one-off.ndjson']);
    const ok = await exportCnv(['--no-state', '--out', out]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(clean);
    expect(readdirSync(dir)).toEqual(['one-off.ndjson']);
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });

  it('a kill leaves the old file; the next run removes the dead temporary file (never following a planted symlink)', async () => {
    const dir = outDir();
    const out = join(dir, 'killed.ndjson');
    writeFileSync(out, 'yesterday\n');
    const victim = join(outDir(), 'victim.txt');
    writeFileSync(victim, 'do not touch\n');
    // A dead process's temporary name, planted as a symlink: removed as a link, its target untouched.
    symlinkSync(victim, join(dir, '.killed.ndjson.cnv-999999-deadbeef.tmp'));
    const run = execa('node', [BIN, 'export', 'contacts', '--no-state', '--out', out, '--limit', '100'], {
      reject: false,
      env: { ...fx.env, CNV_TEST_CRASH_AT: 'after-fsync:2' },
    });
    const killed = await run;
    expect(killed.signal).toBe('SIGKILL');
    expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
    // The planted link went at the start of that run; the killed run's own file stays, for now.
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([
      expect.stringMatching(/^\.killed\.ndjson\.cnv-\d+-[0-9a-f]{8}\.tmp$/),
    ]);
    expect(readdirSync(dir)).not.toContain('.killed.ndjson.cnv-999999-deadbeef.tmp');
    const ok = await exportCnv(['--no-state', '--out', out]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(clean);
    expect(readdirSync(dir)).toEqual(['killed.ndjson']);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch\n');
  });

  it('a symlink at --out keeps pointing where it did; its target is replaced', async () => {
    const dir = outDir();
    mkdirSync(join(dir, 'real'));
    const target = join(dir, 'real', 'data.ndjson');
    writeFileSync(target, 'old\n');
    const link = join(dir, 'data.ndjson');
    symlinkSync(target, link);
    const ok = await exportCnv(['--no-state', '--out', link]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(clean);
    expect(readFileSync(link, 'utf8')).toBe(clean);
  });

  it('--help says what happens to the file', async () => {
    const help = await cnvInProcess(['help', 'export', 'contacts']);
    expect(help.stdout).toMatch(/--no-state[\s\S]*renamed over it\s+only once the export succeeded/);
    expect(help.stdout).not.toMatch(/append to this file/);
  });
});
