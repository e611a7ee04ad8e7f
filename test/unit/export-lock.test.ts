import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireExportLock, lockHolder } from '../../src/exports/lock.js';
import { TransientError } from '../../src/errors.js';

const statePath = () => join(mkdtempSync(join(tmpdir(), 'cnv-lock-')), 'k.json');

describe('export lock (proper-lockfile sidecar)', () => {
  it('a second taker fails at once with exit 7, naming the holder; release frees it', async () => {
    const path = statePath();
    const first = await acquireExportLock(path, 'k');
    expect(lockHolder(path)).toMatchObject({ pid: process.pid, hostname: hostname() });
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
  });

  it('takes over at once a lock whose holder died (SIGKILL leaves it behind)', async () => {
    const path = statePath();
    const child = await execa('node', ['-e', 'console.log(process.pid)']);
    const deadPid = Number(child.stdout);
    mkdirSync(`${path}.lock`);
    writeFileSync(join(`${path}.lock`, 'owner.json'), JSON.stringify({ pid: deadPid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
    expect(lockHolder(path)).toBeUndefined(); // `state show` does not name a dead holder
    const lock = await acquireExportLock(path, 'k');
    expect(lockHolder(path)?.pid).toBe(process.pid);
    await lock.release();
  });

  it('does not take over a live holder, nor one on another host before it goes stale', async () => {
    const path = statePath();
    mkdirSync(`${path}.lock`);
    writeFileSync(join(`${path}.lock`, 'owner.json'), JSON.stringify({ pid: 1, hostname: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }));
    await expect(acquireExportLock(path, 'k')).rejects.toThrow(/pid 1 on elsewhere/);
  });
});
