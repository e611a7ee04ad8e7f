import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { BIN, cnv } from '../helpers/cli.js';
import { exportState, outDir, killUntilDone, resumableExports, sha256 } from '../helpers/exports.js';

// gzip output under the exactly-once protocol: each committed page is one gzip member, so a
// file cut back to its committed length is whole gzip, and a resumed file decompresses to
// exactly one clean export.
const { fx, reference, args, spawn } = resumableExports();

/** The file read by three gzip readers; each must give the same text. */
function readGzip(path: string): string {
  execFileSync('gunzip', ['-t', path]);
  const node = gunzipSync(readFileSync(path)).toString('utf8');
  const py = execFileSync(
    'python3',
    ['-c', 'import gzip,sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())', path],
    { maxBuffer: 64 << 20 },
  ).toString('utf8');
  expect(py).toBe(node);
  expect(execFileSync('gunzip', ['-c', path], { maxBuffer: 64 << 20 }).toString('utf8')).toBe(node);
  return node;
}

describe('--out FILE.csv.gz', () => {
  it('a clean run: one member per page, CSV header in the first; the manifest checksum is of the bytes on disk', async () => {
    const out = join(outDir(), 'contacts.csv.gz');
    const res = await cnv(args(out, 'gz-clean'), { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    const file = readFileSync(out);
    expect(readGzip(out)).toBe(reference());
    // Each page is its own member: 7 pages, 7 gzip headers (1f 8b 08) at member starts.
    const state = (await exportState(fx.configDir, 'gz-clean'))!;
    expect(state.current).toMatchObject({ format: 'csv', compress: 'gzip', pages: 7, output: { bytes: file.length } });
    expect(state.runs.at(-1)!.sha256).toBe(sha256(file));
    const firstMember = gunzipSync(file.subarray(0, memberEnds(file)[0])).toString('utf8');
    expect(firstMember.startsWith('id,sfdcLeadId,')).toBe(true);
    expect(memberEnds(file)).toHaveLength(7);
    // The next run adds nothing but keeps the file whole gzip.
    const again = await cnv(args(out, 'gz-clean'), { env: fx.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readGzip(out)).toBe(reference());
  });

  it.each([
    ['mid-write', 3],
    ['after-fsync', 2],
    ['before-state', 1],
    ['after-state', 4],
  ])('SIGKILL at %s on page %i: the resumed file decompresses to one clean export', async (step, page) => {
    const out = join(outDir(), 'contacts.csv.gz');
    const key = `gz-${step}-${page}`;
    const crashed = await cnv(args(out, key), { env: { ...fx.env, CNV_TEST_CRASH_AT: `${step}:${page}` } });
    expect(crashed.exitCode, crashed.stderr).toBe(-1);
    const state = await exportState(fx.configDir, key);
    const committed = state?.current.output.kind === 'file' ? state.current.output.bytes : 0;
    const size = existsSync(out) ? statSync(out).size : 0;
    if (step === 'after-state') expect(size).toBe(committed);
    else expect(size).toBeGreaterThan(committed);
    const resumed = await cnv(args(out, key), { env: fx.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    if (size > committed) expect(resumed.stderr).toContain(`cut ${size - committed} uncommitted bytes first`);
    expect(readGzip(out)).toBe(reference());
    const file = readFileSync(out);
    const run = (await exportState(fx.configDir, key))!.runs.at(-1)!;
    expect(run).toMatchObject({ status: 'complete', startOffset: committed, bytes: file.length - committed });
    expect(run.sha256).toBe(sha256(file.subarray(committed)));
  });

  it('kill -9 from outside at random moments, 2 seeds: every resumed .gz reads as exactly one clean export', async () => {
    await fx.faults({ latencyMs: 30 });
    let kills = 0;
    for (let seed = 1; seed <= 2; seed++) {
      const random = mulberry32(seed);
      const out = join(outDir(), `random-${seed}.csv.gz`);
      const { finished, kills: killed } = await killUntilDone(
        () => spawn(args(out, `gz-random-${seed}`, '100')),
        random,
        { attempts: 12, base: 150, spread: 500, step: 400 },
      );
      kills += killed;
      expect(finished, `seed ${seed}`).toBe(true);
      expect(readGzip(out), `seed ${seed}`).toBe(reference());
    }
    expect(kills).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe('gzip without a file state', () => {
  it('--no-state --out x.ndjson.gz: written beside and renamed; same rows as a plain export', async () => {
    const dir = outDir();
    const out = join(dir, 'x.ndjson.gz');
    writeFileSync(out, 'old content');
    const gz = await cnv(['export', 'contacts', '--no-state', '--out', out], { env: fx.env });
    expect(gz.exitCode, gz.stderr).toBe(0);
    const plain = await cnv(['export', 'contacts', '--no-state', '--quiet'], { env: fx.env });
    expect(readGzip(out)).toBe(plain.stdout);
  });

  it('--compress gzip to stdout; a pipeline reads the same rows', async () => {
    const res = await execa(
      'node',
      [BIN, 'export', 'contacts', '--no-state', '--compress', 'gzip', '-o', 'csv', '--quiet'],
      { env: fx.env, encoding: 'buffer', reject: false },
    );
    expect(res.exitCode).toBe(0);
    expect(gunzipSync(res.stdout as unknown as Buffer).toString('utf8')).toBe(reference());
  });

  it('refuses names that lie: --compress gzip into a plain name, --compress none into .gz (exit 2)', async () => {
    const dir = outDir();
    const a = await cnv(['export', 'contacts', '--out', join(dir, 'c.csv'), '--compress', 'gzip'], { env: fx.env });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toContain('--compress gzip: name the file');
    const b = await cnv(['export', 'contacts', '--out', join(dir, 'c.csv.gz'), '--compress', 'none'], { env: fx.env });
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toContain('--compress none');
    const c = await cnv(['export', 'contacts', '--compress', 'zstd'], { env: fx.env });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toContain('--compress: expected gzip or none');
  });
});

/** Where each gzip member of a file ends (inflating member after member). */
function memberEnds(file: Buffer): number[] {
  const ends: number[] = [];
  let at = 0;
  while (at < file.length) {
    // Find the shortest prefix from `at` that inflates as one member: scan the next header.
    let next = file.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), at + 18);
    for (;;) {
      const end = next < 0 ? file.length : next;
      try {
        gunzipSync(file.subarray(at, end));
        ends.push(end);
        at = end;
        break;
      } catch {
        if (next < 0) throw new Error(`no whole member at ${at}`);
        next = file.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), next + 1);
      }
    }
  }
  return ends;
}
