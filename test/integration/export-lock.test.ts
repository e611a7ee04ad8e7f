import { execa } from 'execa';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireExportLock, lockHolder } from '../../src/exporter/lock.js';
import { TransientError } from '../../src/errors.js';
import { processStartTicks } from '../../src/lib/process-alive.js';

const statePath = () => join(mkdtempSync(join(tmpdir(), 'cnv-lock-')), 'k.json');
const deadPid = async () => Number((await execa('node', ['-e', 'console.log(process.pid)'])).stdout);
const ROOT = resolve(import.meta.dirname, '../..');

describe('export lock (src/files/owner-lock.ts: an owner file linked into place)', () => {
  it('a second taker fails at once with exit 7, naming the holder; release frees it', async () => {
    const path = statePath();
    const first = await acquireExportLock(path, 'k');
    expect(lockHolder(path)).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      startedAt: expect.any(String),
      procStart: processStartTicks(process.pid),
    });
    const started = Date.now();
    const err = await acquireExportLock(path, 'k').catch((e) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toContain(`pid ${process.pid}`);
    await first.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    const again = await acquireExportLock(path, 'k');
    expect(again.lost()).toBeUndefined();
    await again.release();
    expect(readdirSync(join(path, '..'))).toEqual([]); // nothing left beside it
  });

  it('takes over at once a lock whose holder died (SIGKILL leaves it behind)', async () => {
    const path = statePath();
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: await deadPid(), hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    expect(lockHolder(path)).toBeUndefined(); // `state show` does not name a dead holder
    const lock = await acquireExportLock(path, 'k');
    expect(lockHolder(path)?.pid).toBe(process.pid);
    await lock.release();
  });

  it("a lock of another format (an earlier cnv's directory with owner.json, a pid and a hex, junk) is refused (exit 2), never taken over", async () => {
    const path = statePath();
    const dead = await deadPid();
    const shapes: Array<[string, () => void]> = [
      [
        'a directory',
        () => {
          mkdirSync(`${path}.lock`);
          writeFileSync(
            join(`${path}.lock`, 'owner.json'),
            JSON.stringify({ pid: dead, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
          );
        },
      ],
      ['`<pid> <hex>`', () => writeFileSync(`${path}.lock`, `${dead} abcd\n`)],
      [
        'JSON without a start time',
        () => writeFileSync(`${path}.lock`, JSON.stringify({ pid: dead, hostname: hostname() })),
      ],
      ['junk', () => writeFileSync(`${path}.lock`, '')],
    ];
    for (const [what, make] of shapes) {
      rmSync(`${path}.lock`, { recursive: true, force: true });
      make();
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${path}.lock`, old, old);
      const err = await acquireExportLock(path, 'k').catch((e) => e);
      expect(err, what).toMatchObject({
        exitCode: 2,
        code: 'lock_unrecognised',
        message: `${path}.lock is not a lock this version of cnv writes: whether a run still holds it cannot be told`,
      });
      expect(err.hint, what).toBe(`if no cnv run uses it, remove it (rm -r ${path}.lock) and run again`);
      expect(existsSync(`${path}.lock`), what).toBe(true);
      expect(lockHolder(path), what).toBeUndefined();
    }
  });

  it('does not take over a live holder, nor one on another host before it goes stale; takes that one once stale (10 s)', async () => {
    const path = statePath();
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: 1, hostname: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    await expect(acquireExportLock(path, 'k')).rejects.toThrow(/pid 1 on elsewhere/);
    const old = new Date(Date.now() - 11_000);
    utimesSync(`${path}.lock`, old, old);
    expect(lockHolder(path)).toBeUndefined();
    const lock = await acquireExportLock(path, 'k');
    expect(lockHolder(path)?.pid).toBe(process.pid);
    await lock.release();

    // A live pid of this host that is the holder (its start time is the one recorded) holds it, refreshed or not.
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({
        pid: process.ppid,
        hostname: hostname(),
        startedAt: '2026-01-01T00:00:00.000Z',
        procStart: processStartTicks(process.ppid),
      }),
    );
    utimesSync(`${path}.lock`, old, old);
    await expect(acquireExportLock(path, 'k')).rejects.toThrow(new RegExp(`pid ${process.ppid} on `));
  });

  it('a pid of this host now used by another process (a reboot, a container restart) is no holder: taken over at once, or once not refreshed', async () => {
    const path = statePath();
    const other = execa('sleep', ['30']);
    try {
      const pid = other.pid!;
      // The lock of a process that had this pid before: it started at another time.
      writeFileSync(
        `${path}.lock`,
        JSON.stringify({
          pid,
          hostname: hostname(),
          startedAt: '2026-01-01T00:00:00.000Z',
          procStart: processStartTicks(pid)! - 12345,
        }),
      );
      expect(lockHolder(path)).toBeUndefined();
      const taken = await acquireExportLock(path, 'k');
      expect(lockHolder(path)?.pid).toBe(process.pid);
      await taken.release();
      // Without a start time to compare (a system without /proc): by its age, as for another host.
      writeFileSync(
        `${path}.lock`,
        JSON.stringify({ pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
      );
      const err = await acquireExportLock(path, 'k').catch((e) => e);
      expect(err).toBeInstanceOf(TransientError);
      expect(err.hint).toContain(`if no cnv run is that process, remove ${path}.lock`);
      const old = new Date(Date.now() - 11_000);
      utimesSync(`${path}.lock`, old, old);
      const again = await acquireExportLock(path, 'k');
      await again.release();
    } finally {
      other.kill();
      await other.catch(() => {});
    }
  });

  it('never follows a symlink where the lock goes: the link is replaced, its target untouched', async () => {
    const path = statePath();
    const victim = join(path, '..', 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, `${path}.lock`);
    const lock = await acquireExportLock(path, 'k');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(`${path}.lock`).isFile()).toBe(true);
    await lock.release();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('lost(): a holder whose lock another process took over knows it', async () => {
    const path = statePath();
    const lock = await acquireExportLock(path, 'k');
    expect(lock.lost()).toBeUndefined();
    // As a takeover does: the lock replaced by another's.
    writeFileSync(`${path}.lock.new`, JSON.stringify({ pid: 1, hostname: 'elsewhere', startedAt: 'now' }));
    (await import('node:fs')).renameSync(`${path}.lock.new`, `${path}.lock`);
    expect(lock.lost()?.message).toMatch(/took it over/);
    await lock.release();
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).hostname).toBe('elsewhere'); // not removed: not its lock
  });

  it('of eight processes racing to take over one stale lock, exactly one holds it', async () => {
    const path = statePath();
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: await deadPid(), hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    // The built module (npm test builds first): eight node processes, no TypeScript loader. They
    // start at one instant, and all say at one later instant whether they (still) hold it.
    const at = Date.now() + 2500;
    const script = `
      import { takeLock } from '${ROOT}/dist/files/owner-lock.js';
      while (Date.now() < ${at});
      let lock;
      try { lock = takeLock(${JSON.stringify(`${path}.lock`)}, () => new Error('held')); } catch (err) { console.log(err.message); }
      if (lock) setTimeout(() => console.log(lock.lost() ? 'lost' : 'holds'), ${at + 3000} - Date.now());
    `;
    const runs = await Promise.all(
      Array.from({ length: 8 }, () =>
        execa('node', ['--input-type=module', '-e', script], { cwd: ROOT, reject: false }),
      ),
    );
    const outcomes = runs.map((r) => r.stdout || r.stderr);
    expect(
      outcomes.filter((o) => o === 'holds'),
      outcomes.join('\n'),
    ).toHaveLength(1);
    expect(
      outcomes.filter((o) => o !== 'holds' && o !== 'held' && o !== 'lost'),
      outcomes.join('\n'),
    ).toEqual([]);
  });
});
